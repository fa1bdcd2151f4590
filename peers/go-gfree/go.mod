module peer-go-gfree

go 1.19
