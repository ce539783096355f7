-- Neovim: `mappings lsp` for .mappings files (docs/editors.md).
--
--   dofile("/path/to/mappings/integrations/editors/nvim/mappings.lua").setup()
--
-- in init.lua starts the server for each .mappings file, with the folder that holds
-- contexts/ (or the file's own folder) as the workspace. Neovim 0.7 and later.
local M = {}

-- The folder that holds contexts/ above `path`, or the folder of `path`.
local function workspace(path)
  local directory = vim.fn.fnamemodify(path, ":p:h")
  local folder = directory
  while folder ~= "/" and folder ~= "" do
    if vim.fn.isdirectory(folder .. "/contexts") == 1 then
      return folder
    end
    folder = vim.fn.fnamemodify(folder, ":h")
  end
  return directory
end

local clients = {}

local function attach(buffer, options)
  local root = workspace(vim.api.nvim_buf_get_name(buffer))
  if vim.lsp.start then
    vim.lsp.start({ name = "mappings", cmd = options.cmd, root_dir = root }, { bufnr = buffer })
    return
  end
  -- Neovim 0.7: one client per workspace, attached by hand.
  local id = clients[root]
  if not id or vim.lsp.client_is_stopped(id) then
    id = vim.lsp.start_client({ name = "mappings", cmd = options.cmd, root_dir = root })
    clients[root] = id
  end
  vim.lsp.buf_attach_client(buffer, id)
end

function M.setup(options)
  options = vim.tbl_extend("force", { cmd = { "mappings", "lsp" } }, options or {})
  local group = vim.api.nvim_create_augroup("mappings_lsp", { clear = true })
  vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, {
    group = group,
    pattern = "*.mappings",
    callback = function(event)
      vim.bo[event.buf].filetype = "mappings"
    end,
  })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = "mappings",
    callback = function(event)
      vim.bo[event.buf].commentstring = "// %s"
      attach(event.buf, options)
    end,
  })
  return M
end

return M
