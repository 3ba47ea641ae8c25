module github.com/headergold/headergold/testdata/external

go 1.26

require github.com/headergold/headergold v0.0.0

require (
	github.com/dlclark/regexp2/v2 v2.5.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/sebdah/goldie/v2 v2.8.0 // indirect
	github.com/sergi/go-diff v1.0.0 // indirect
	github.com/tidwall/gjson v1.20.2 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
	github.com/tiktoken-go/tokenizer v0.10.0 // indirect
)

replace github.com/headergold/headergold => ../..
