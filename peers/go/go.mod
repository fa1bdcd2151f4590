module harness/peers/go

go 1.19
