" .mappings files (docs/editors.md).
autocmd BufRead,BufNewFile *.mappings setfiletype mappings
