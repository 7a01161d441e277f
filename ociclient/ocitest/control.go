package ocitest

import (
	"crypto/rsa"
	"net/http"
	"sync"
)

// control is the layer every request passes before its handler: signature verification,
// server-side rate limiting, injected faults and call accounting.
type control struct {
	mu    sync.Mutex
	calls map[string]int
	keys  map[string]*rsa.PublicKey // by keyId
}

func newControl() *control {
	return &control{calls: map[string]int{}, keys: map[string]*rsa.PublicKey{}}
}

func (c *control) registerKey(keyID string, pub *rsa.PublicKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keys[keyID] = pub
}

// admit counts the call and reports whether the handler may run. When it returns false it has
// already written the response.
func (c *control) admit(op string, class Class, w http.ResponseWriter, r *http.Request) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[op]++
	return true
}
