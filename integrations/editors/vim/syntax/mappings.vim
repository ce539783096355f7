" Vim syntax file for .mappings files: JSON with // and /* */ comments and trailing commas,
" keywords starting with @, context names starting with $ (docs/language.md).
if exists("b:current_syntax")
  finish
endif

syntax match mappingsComment "//.*$" contains=@Spell
syntax region mappingsComment start="/\*" end="\*/" contains=@Spell
syntax region mappingsString start=/"/ skip=/\\./ end=/"/ contains=mappingsEscape,mappingsContext
syntax match mappingsEscape /\\["\\\/bfnrtu]/ contained
syntax match mappingsContext /\$[^".]\+/ contained
syntax match mappingsKeyword /"@[A-Za-z]\+[^"]*"\ze\s*:/
syntax match mappingsKey /"[^"@][^"]*"\ze\s*:/ contains=mappingsContext
syntax match mappingsNumber /-\=\<\d\+\%(\.\d\+\)\=\%([eE][-+]\=\d\+\)\=\>/
syntax keyword mappingsConstant true false null

highlight default link mappingsComment Comment
highlight default link mappingsString String
highlight default link mappingsEscape SpecialChar
highlight default link mappingsContext Identifier
highlight default link mappingsKeyword Keyword
highlight default link mappingsKey Label
highlight default link mappingsNumber Number
highlight default link mappingsConstant Constant

let b:current_syntax = "mappings"
