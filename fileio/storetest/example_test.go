package storetest_test

import (
	"context"
	"fmt"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
)

// A Service over a store with the optional write interfaces and over the same kind of store
// with them hidden: the answers are the same, only the number of store calls differs.
func ExampleWithoutOptional() {
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("example-key", "me"))
	for _, store := range []driver.Store{memstore.New(memstore.Options{}), storetest.WithoutOptional(memstore.New(memstore.Options{}))} {
		svc, err := fileio.NewService(store, fileio.Options{})
		if err != nil {
			panic(err)
		}
		svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: "/log.txt", Content: "one\n"})
		res, _ := svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: "/log.txt", Content: "two\n", Mode: fileio.ModeAppend})
		_, err = svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: "/log.txt/x", Content: "x"})
		fmt.Println(res.FileSizeBytes, err)
	}
	// Output:
	// 8 NOT_DIRECTORY: /log.txt is a file, so it cannot contain /log.txt/x; choose another path (/log.txt)
	// 8 NOT_DIRECTORY: /log.txt is a file, so it cannot contain /log.txt/x; choose another path (/log.txt)
}
