module hpsearch.example/go-master

go 1.19
