package adapters_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
)

// TestLimitConcurrency: a tenant's calls past its slots, and any call past the total, are
// refused at once with RESOURCE_BUSY naming which; other tenants' calls run meanwhile; freed
// slots are taken again; the description states the bound.
func TestLimitConcurrency(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	slow := adapters.NewTool("slow", "Slow", "Runs long.", adapters.Annotations{ReadOnly: true},
		func(ctx context.Context, in struct{}) (string, error) {
			entered <- struct{}{}
			<-release
			return "done", nil
		})
	tool := adapters.LimitConcurrency([]adapters.Tool{slow}, 1, 2)[0]
	as := func(tenant string) context.Context {
		return agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("key-"+tenant, tenant))
	}
	done := make(chan error, 2)
	for _, tenant := range []string{"a", "b"} {
		go func() {
			_, err := tool.Handler(as(tenant), []byte(`{}`))
			done <- err
		}()
		<-entered
	}
	for _, tc := range []struct{ tenant, want string }{
		{"a", "your other calls of slow already run 1 at once"},
		{"c", "the calls of all callers already run 2 at once"},
	} {
		_, err := tool.Handler(as(tc.tenant), []byte(`{}`))
		if agentfiles.ErrorCode(err) != agentfiles.CodeResourceBusy || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("a call of %s while a and b run: %v; want RESOURCE_BUSY saying %q", tc.tenant, err, tc.want)
		}
	}
	release <- struct{}{}
	release <- struct{}{}
	for range 2 {
		if err := <-done; err != nil {
			t.Errorf("a running call: %v", err)
		}
	}
	go func() { <-entered; release <- struct{}{} }()
	if out, err := tool.Handler(as("c"), []byte(`{}`)); err != nil || out != "done" {
		t.Errorf("a call after the others finished: %v, %v", out, err)
	}
	if !strings.Contains(tool.Description, "At most 1 of your calls of slow run at once (2 of all callers')") {
		t.Errorf("description: %q", tool.Description)
	}
}
