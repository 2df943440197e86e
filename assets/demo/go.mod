module github.com/acme/shipd

go 1.19
