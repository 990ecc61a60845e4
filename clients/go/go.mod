module github.com/crdstore/crdstore/clients/go

go 1.26.0

require (
	golang.org/x/net v0.42.0
	google.golang.org/genproto/googleapis/api v0.0.0-20250804133106-a7a43d27e69b
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261019180522-ce908d29299b
	google.golang.org/grpc v1.76.0
	google.golang.org/protobuf v1.36.12
)

require (
	golang.org/x/sys v0.34.0 // indirect
	golang.org/x/text v0.27.0 // indirect
)
