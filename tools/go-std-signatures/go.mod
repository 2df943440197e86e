module ripple/tools/go-std-signatures

go 1.19
