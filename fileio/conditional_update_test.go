package fileio_test

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/google/go-cmp/cmp"
)

// updaterStore adds a driver.ConditionalUpdater to a memstore: an Update whose callback makes
// the ConditionalWriter's write, or, when declining, only reports the state (Written false).
type updaterStore struct {
	*memstore.Store
	decline bool
	calls   int
}

func (s *updaterStore) UpdateIfAllowed(ctx context.Context, scope driver.Scope, opts driver.UpdateOptions, w driver.ConditionalWrite, put driver.PutOptions) (driver.ConditionalResult, error) {
	s.calls++
	var res driver.ConditionalResult
	err := s.Update(ctx, scope, opts, func(tx driver.WriteTx) error {
		var err error
		if s.decline {
			res.Check, err = tx.(driver.WriteChecker).CheckWrite(ctx, w.Path, false)
			return err
		}
		res, err = tx.(driver.ConditionalWriter).WriteIfAllowed(ctx, w, put)
		return err
	})
	return res, err
}

// TestConditionalUpdater: Service.Write makes TRUNCATE and APPEND through a Store's
// ConditionalUpdater, returns the rules' error for a write they refuse, writes through Update
// when the store declines a write the rules allow, and keeps OVERWRITE on the Update path.
func TestConditionalUpdater(t *testing.T) {
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-test", "alice"))
	for _, decline := range []bool{false, true} {
		s := &updaterStore{Store: memstore.New(memstore.Options{}), decline: decline}
		svc, err := fileio.NewService(s, fileio.Options{})
		if err != nil {
			t.Fatal(err)
		}
		type step struct {
			Code    string
			Size    int64
			Created bool
			Calls   int
		}
		var got []step
		for _, req := range []fileio.WriteRequest{
			{Path: "/a", Content: "hello", Mode: fileio.ModeTruncate},
			{Path: "/a", Content: " world", Mode: fileio.ModeAppend},
			{Path: "/a", Content: "x", Mode: fileio.ModeTruncate, Exclusive: true},
			{Path: "/a/b", Content: "x", Mode: fileio.ModeAppend},
			{Path: "/a", Content: "J", Mode: fileio.ModeOverwrite},
		} {
			req.Project = "p"
			res, err := svc.Write(ctx, req)
			code := ""
			if err != nil {
				code = agentfiles.ErrorCode(err).String()
			}
			got = append(got, step{Code: code, Size: res.FileSizeBytes, Created: res.Created, Calls: s.calls})
		}
		want := []step{
			{Size: 5, Created: true, Calls: 1},
			{Size: 11, Calls: 2},
			{Code: agentfiles.CodeAlreadyExists.String(), Calls: 3},
			{Code: fileio.CodeNotDirectory.String(), Calls: 4},
			{Size: 11, Calls: 4},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("decline %v: writes (-want +got):\n%s", decline, diff)
		}
		r, err := svc.Read(ctx, fileio.ReadRequest{Project: "p", Path: "/a", OffsetBytes: 0, LengthBytes: new(int64(fileio.ReadToEOF))})
		if err != nil || r.Content != "Jello world" {
			t.Errorf("decline %v: content %q, %v; want \"Jello world\"", decline, r.Content, err)
		}
	}
}
