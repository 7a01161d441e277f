// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/oracle/oci-go-sdk/v65/core"
	"k8s.io/klog/v2"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/ociclient"
)

// VirtualNetwork is the part of the OCI Networking API the Manager calls. ociclient's
// VirtualNetwork satisfies it. The network security group calls are used only by Services in
// mode NSG.
type VirtualNetwork interface {
	GetSubnet(ctx context.Context, id string) (core.Subnet, error)
	GetSecurityList(ctx context.Context, id string) (list core.SecurityList, etag string, err error)
	UpdateSecurityList(ctx context.Context, id string, ingress []core.IngressSecurityRule, egress []core.EgressSecurityRule, ifMatch string) (list core.SecurityList, etag string, err error)
	ListNetworkSecurityGroups(ctx context.Context, compartmentID, vcnID string) ([]core.NetworkSecurityGroup, error)
	CreateNetworkSecurityGroup(ctx context.Context, details core.CreateNetworkSecurityGroupDetails, retryToken string) (core.NetworkSecurityGroup, error)
	DeleteNetworkSecurityGroup(ctx context.Context, id string) error
	ListNetworkSecurityGroupSecurityRules(ctx context.Context, id string) ([]core.SecurityRule, error)
	AddNetworkSecurityGroupSecurityRules(ctx context.Context, id string, rules []core.AddSecurityRuleDetails) ([]core.SecurityRule, error)
	RemoveNetworkSecurityGroupSecurityRules(ctx context.Context, id string, ruleIDs []string) error
}

var _ VirtualNetwork = ociclient.VirtualNetwork(nil)

// Defaults for Options.
const (
	// DefaultAttempts bounds the read-merge-write rounds of one list sync when OCI answers
	// 412 (another writer changed the list between our read and our write).
	DefaultAttempts = 8
	// DefaultBaseDelay is the backoff ceiling before the first retry after a 412; it doubles
	// per retry up to DefaultMaxDelay, and the actual wait is jittered below it.
	DefaultBaseDelay = 100 * time.Millisecond
	// DefaultMaxDelay caps the backoff ceiling between two rounds.
	DefaultMaxDelay = 3 * time.Second
	// DefaultSyncTimeout bounds one list sync, all rounds included. A sync serves every
	// caller waiting on the list, so it does not end when one caller gives up.
	DefaultSyncTimeout = 2 * time.Minute
	// DefaultMaxListAge is how long the Manager trusts a security list as it last read or
	// wrote it. Within it, a reconcile that changes nothing makes no call, and one that changes
	// something writes with the remembered ETag (a 412 then means someone else changed the
	// list: it is read again and the change re-applied). After it, the list is read again
	// before deciding, so a rule of ours removed by hand comes back within this time of the
	// next reconcile that touches the list.
	DefaultMaxListAge = 10 * time.Minute
	// DefaultListingLag is how long after a network security group is created a listing may
	// still lack it. OCI documents no figure for this (assumed); ocitest lags 2 seconds by
	// default.
	DefaultListingLag = 5 * time.Second
)

// Options configure a Manager.
type Options struct {
	// Policy is the cluster-wide part of rule computation. Required (Cluster at least).
	Policy Policy
	// Limits caps rules per list and direction; zero fields take DefaultLimits.
	Limits Limits
	// NSGLimits caps rules per network security group; the zero value takes DefaultNSGLimits.
	NSGLimits Limits
	// Attempts, BaseDelay and MaxDelay bound the retries after a 412; zero fields take the
	// Default* values.
	Attempts  int
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// SyncTimeout bounds one list sync; zero means DefaultSyncTimeout.
	SyncTimeout time.Duration
	// MaxListAge is how long a list as last read or written is trusted without reading it
	// again (see DefaultMaxListAge); zero means DefaultMaxListAge, negative means every sync
	// reads the list first.
	MaxListAge time.Duration
	// Logger receives structured logs; the zero value means the logger of the context of the
	// call that started a write (klog.FromContext: the caller's logr.Logger, else klog's).
	Logger klog.Logger
	// OnAdopt, when set, is called after each write that took over undescribed rules
	// (Policy.AdoptUndescribed), with those rules and the Services that need them — e.g. to
	// record an Event on each Service. It runs on the list's writer and must not block.
	OnAdopt func([]Adopted)
	// ListingLag is how long after a network security group is created OCI's listings may still
	// lack it: zero means DefaultListingLag, negative none. A listing made within it of the
	// Manager's start may lack a frontend NSG the process before created just before it stopped,
	// so a Service's frontend NSG missing from such a listing is looked for again once ListingLag
	// has passed since the start, before it is taken to have none (see frontend.go).
	ListingLag time.Duration
}

// Manager keeps the security lists of one cluster in line with the claims of all its load
// balancer Services. It holds the current claim of every Service and runs at most one writer per
// list in the process: callers that change claims at the same time are served by one write per
// list that includes all their changes. All methods are safe for concurrent use.
//
// Typical use by the CCM: Prime once with the claims of every LB Service (from the informer
// cache) after the caches have synced; Reconcile from EnsureLoadBalancer/UpdateLoadBalancer;
// Delete from EnsureLoadBalancerDeleted. Until Prime is called, the Manager only adds rules: it
// cannot tell a rule nobody needs from one a Service it has not heard from yet needs.
type Manager struct {
	vn     VirtualNetwork
	opts   Options
	owner  string
	logger klog.Logger

	// mu guards the fields below. It is held only for bookkeeping, never across a call to OCI,
	// so writers of different lists never wait for each other.
	mu     sync.Mutex
	claims map[string]Claim
	primed bool
	// expected are the other sources of claims (Expect) that have not primed theirs yet; nothing
	// is removed while any has not.
	expected map[string]bool
	touched  map[string]bool   // Services set or deleted here before every source primed
	unknown  map[string]bool   // Services primed with an unknown claim (Claim.Unknown); no pruning while any
	subnets  map[string]Subnet // last known details of every subnet a claim names
	writers  map[string]*writer
	// frontends maps a Service to its frontend NSG, as created or found (mode NSG). A group stays
	// here until OCI confirmed it deleted (deleteFrontend), even once its Service left mode NSG.
	frontends map[string]string
	// retiring maps a Service to the other frontend NSGs it no longer uses (one it had before
	// frontends named another) whose deletion OCI has not confirmed yet; the Service's next
	// Reconcile or Delete deletes them again.
	retiring map[string][]string
	// nsgHomes is where each frontend NSG this process created or listed lives, and nsgCreated
	// when this process created one: what proving a group gone takes (confirmFrontendGone).
	nsgHomes   map[string]nsgHome
	nsgCreated map[string]time.Time
	// version counts the changes to what rules are computed from (claims, unknown claims,
	// Prime, subnets, frontend NSGs): a writer whose last sync succeeded at the current version
	// has nothing new to write (see settled), and Reconcile skips it. Whatever is added that
	// rules depend on must increment version when it changes, or an unchanged claim will not
	// resync after it.
	version uint64

	// nsgMu serialises finding and creating frontend NSGs, so that one process never creates
	// two for one Service. Never held by a writer.
	nsgMu sync.Mutex
	// listedHomes are the compartment and VCN pairs whose groups this process has listed (see
	// findFrontend). Guarded by nsgMu.
	listedHomes map[nsgHome]bool
	// started is when the Manager was made; settled is when a listing shows every group the
	// processes before this one created: started plus Options.ListingLag.
	started, settled time.Time

	now func() time.Time // the clock that ages remembered lists; tests replace it
}

// NewManager returns a Manager that reads and writes security lists through vn.
func NewManager(vn VirtualNetwork, opts Options) (*Manager, error) {
	if vn == nil {
		return nil, fmt.Errorf("%w: a VirtualNetwork client is required", ErrInvalid)
	}
	if err := opts.Policy.Validate(); err != nil {
		return nil, err
	}
	opts.Limits.Ingress = cmp.Or(opts.Limits.Ingress, DefaultLimits.Ingress)
	opts.Limits.Egress = cmp.Or(opts.Limits.Egress, DefaultLimits.Egress)
	if opts.NSGLimits == (Limits{}) {
		opts.NSGLimits = DefaultNSGLimits
	}
	opts.Attempts = cmp.Or(opts.Attempts, DefaultAttempts)
	opts.BaseDelay = cmp.Or(opts.BaseDelay, DefaultBaseDelay)
	opts.MaxDelay = cmp.Or(opts.MaxDelay, DefaultMaxDelay)
	opts.SyncTimeout = cmp.Or(opts.SyncTimeout, DefaultSyncTimeout)
	opts.MaxListAge = cmp.Or(opts.MaxListAge, DefaultMaxListAge)
	opts.ListingLag = max(cmp.Or(opts.ListingLag, DefaultListingLag), 0)
	if opts.Attempts < 1 || opts.BaseDelay < 0 || opts.MaxDelay < opts.BaseDelay || opts.SyncTimeout < 0 ||
		opts.Limits.Ingress < 0 || opts.Limits.Egress < 0 || opts.NSGLimits.Ingress < 0 || opts.NSGLimits.Egress < 0 || opts.NSGLimits.Total < 0 {
		return nil, fmt.Errorf("%w: retry, timeout and limit options must be positive, MaxDelay at least BaseDelay", ErrInvalid)
	}
	logger := opts.Logger
	if logger.GetSink() != nil {
		logger = logger.WithName("seclist")
	}
	start := time.Now()
	return &Manager{
		vn:       vn,
		opts:     opts,
		owner:    Owner(opts.Policy.Cluster),
		logger:   logger,
		claims:   map[string]Claim{},
		touched:  map[string]bool{},
		unknown:  map[string]bool{},
		expected: map[string]bool{},
		subnets:  map[string]Subnet{},
		writers:  map[string]*writer{},
		now:      time.Now,
		started:  start,
		settled:  start.Add(opts.ListingLag),
		version:  1,

		frontends:   map[string]string{},
		retiring:    map[string][]string{},
		nsgHomes:    map[string]nsgHome{},
		nsgCreated:  map[string]time.Time{},
		listedHomes: map[nsgHome]bool{},
	}, nil
}

// clock returns the time by the Manager's clock.
func (m *Manager) clock() time.Time {
	m.mu.Lock()
	now := m.now
	m.mu.Unlock()
	return now()
}

// ForgetLists makes the Manager read every security list again at its next write, instead of
// trusting the list as it last read or wrote it. Call it when the lists may have changed in a
// way that matters without this process writing them, e.g. from a periodic drift check; a
// change made elsewhere is otherwise found by the 412 of the next write, or after
// Options.MaxListAge.
func (m *Manager) ForgetLists() {
	m.mu.Lock()
	writers := slices.Collect(maps.Values(m.writers))
	m.mu.Unlock()
	for _, w := range writers {
		w.forget()
	}
}

// Prime tells the Manager the claims of every load balancer Service in the cluster, and from
// then on (once every source named by Expect has primed too) it removes rules no claim needs. Claims already set or deleted through Reconcile or
// Delete are newer than this snapshot and are kept. Prime makes no call to OCI; subnets are
// resolved when a list is next written. Invalid claims are left out and reported.
//
// A claim marked Unknown (a Service with a load balancer whose needs cannot be computed now)
// stops all removals until that Service's Reconcile or Delete: a rule missing from the known
// claims may be one the Service needs, and removing it would change OCI for an invalid Service.
func (m *Manager) Prime(claims []Claim) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	err := m.primeLocked(claims)
	m.primed = true
	m.settleLocked()
	return err
}

// Expect tells the Manager that claims also come from source, a controller other than the
// Services' (ccm/binding's BackendSetBindings), whose claims are keyed by names no Service can
// have. Until the returned prime is called with source's claims at start-up, as Prime is with the
// Services', no rule is removed: a rule no claim known so far needs may be one of source's. Call
// Expect before Prime can be called, and prime once source has listed what it claims (or knows it
// claims nothing); claims Reconciled or Deleted meanwhile are newer and kept, as with Prime.
// Calling prime again does nothing.
func (m *Manager) Expect(source string) (prime func([]Claim) error) {
	m.mu.Lock()
	m.expected[source] = true
	m.version++
	m.mu.Unlock()
	var once sync.Once
	return func(claims []Claim) (err error) {
		once.Do(func() {
			m.mu.Lock()
			defer m.mu.Unlock()
			err = m.primeLocked(claims)
			delete(m.expected, source)
			m.settleLocked()
		})
		return err
	}
}

// primeLocked takes in a snapshot of claims (Prime): those set or deleted here since the start
// are newer and kept; unknown ones are recorded as such. Invalid claims are left out and
// reported. Guarded by mu.
func (m *Manager) primeLocked(claims []Claim) error {
	var errs []error
	for _, c := range claims {
		if err := c.Validate(); err != nil {
			errs = append(errs, err)
			continue
		}
		switch {
		case m.touched[c.key()]:
		case c.Unknown:
			m.unknown[c.key()] = true
		default:
			m.claims[c.key()] = cloneClaim(c)
		}
	}
	m.version++
	return errors.Join(errs...)
}

// settleLocked forgets which claims were set here before every source primed, once all have.
// Guarded by mu.
func (m *Manager) settleLocked() {
	if m.mayPruneLocked() {
		m.touched = map[string]bool{}
	}
}

// mayPruneLocked says whether the Manager knows every source's claims: Prime was called and every
// Expect's prime too. Until then it only adds rules. Guarded by mu.
func (m *Manager) mayPruneLocked() bool { return m.primed && len(m.expected) == 0 }

// touch records, until every source primed, that a Service's claim was set or deleted here, so
// that an older snapshot (Prime, Expect) does not overwrite it. Guarded by mu.
func (m *Manager) touch(service string) {
	if !m.mayPruneLocked() {
		m.touched[service] = true
	}
}

// Reconcile sets the claim of c.Service, replacing any earlier one, and returns once every
// security list the claim (or the claim it replaces) has rules in reflects it — or the first
// write that would have failed. A Service whose mode is None (and had no rules before) returns
// at once without calling OCI, but for the one listing per VCN and process that looks for
// frontend NSGs left to retire (below).
//
// Reconcile calls GetSubnet for the claim's subnets, so a changed subnet (CIDR, attached lists)
// takes effect when its Services are next reconciled. An invalid claim, or one with a subnet
// that has nowhere to put its rules, changes nothing and returns an error wrapping ErrInvalid,
// ErrNoSecurityList or ErrListNotAttached.
//
// In mode NSG the targets are the Service's frontend NSG (Claim.FrontendNSG, else the one
// FrontendNSG made or its tags name; none is ErrNoFrontendNSG) and its backend NSGs. A Service
// that leaves mode NSG has its frontend NSG deleted once the rules naming it are gone (lb has
// detached it by then: FrontendNSG returned "" for the Service). The group stays the Service's
// until OCI confirms it deleted: a delete that fails, or answers a 404 that a read or a listing
// does not confirm (OCI answers 404 also when the policy forbids the delete), is an error, and
// the Service's next Reconcile or Delete deletes it again.
func (m *Manager) Reconcile(ctx context.Context, c Claim) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if c.Unknown {
		return fmt.Errorf("%w: service %q: an unknown claim is only for Prime", ErrInvalid, c.key())
	}
	c = cloneClaim(c)
	if err := m.refreshSubnets(ctx, m.opts.Policy.subnetsUsed(c)); err != nil {
		return fmt.Errorf("service %s: %w", c.key(), err)
	}
	if m.opts.Policy.mode(c) == config.SecurityListModeNSG && c.FrontendNSG == "" {
		id, err := m.frontendOf(ctx, c.key(), c.LBSubnets, true)
		if err != nil {
			return fmt.Errorf("service %s: %w", c.key(), err)
		}
		if id == "" {
			return fmt.Errorf("service %s: %w (is engine.Options.FrontendNSG set to Manager.FrontendNSG?)", c.key(), ErrNoFrontendNSG)
		}
		c.FrontendNSG = id
	} else if uses := m.usesNSGs(); c.FrontendNSG == "" && (uses || !m.clock().Before(m.settled)) {
		// A Service that left mode NSG while no CCM ran, or whose group the process before could
		// not delete, may have a frontend NSG to retire, which only a listing finds (m.frontends,
		// below). Only the first lookup in a VCN lists it (see findFrontend). While a Service of
		// the cluster is in mode NSG, the listing waits out the listing lag, as one made before
		// may have missed the group; otherwise it is made once the lag has passed since the start,
		// and none before (a cluster without mode NSG makes one listing per VCN and process).
		// Opportunistic: a failure leaves the group for a later reconcile, or the Service's Delete.
		if _, err := m.frontendOf(ctx, c.key(), c.LBSubnets, uses); err != nil {
			m.loggerFor(ctx).V(2).Info("Could not look for a frontend network security group to retire", "service", c.key(), "err", err)
		}
	}
	// The lists of the claim being replaced need rewriting too; learn its subnets if a Prime
	// snapshot brought it in unresolved. One that no longer exists has no list to clean.
	m.mu.Lock()
	prev, hadPrev := m.claims[c.key()]
	m.mu.Unlock()
	if hadPrev {
		if _, err := m.knowSubnets(ctx, m.opts.Policy.subnetsUsed(prev)); err != nil {
			return fmt.Errorf("service %s: %w", c.key(), err)
		}
	}
	m.mu.Lock()
	lists, err := ListsOf(c, m.subnets, m.opts.Policy)
	if err != nil {
		m.mu.Unlock()
		return fmt.Errorf("service %s: %w", c.key(), err)
	}
	old, hadOld := m.claims[c.key()]
	_, wasUnknown := m.unknown[c.key()]
	unchanged := hadOld && !wasUnknown && sameClaim(old, c)
	if !unchanged {
		m.claims[c.key()] = c
		delete(m.unknown, c.key())
		m.version++
	}
	m.touch(c.key())
	// A frontend NSG the Service no longer uses (it left mode NSG) is deleted, not emptied.
	// (A claim primed after a restart has none, but a listing may have found it: m.frontends.)
	// It stays the Service's until OCI confirms it deleted: a failed delete is tried again by
	// the next Reconcile or Delete (m.frontends, m.retiring).
	var retired []string
	if hadOld && old.FrontendNSG != "" && old.FrontendNSG != c.FrontendNSG {
		retired = append(retired, old.FrontendNSG)
	}
	if id := m.frontends[c.key()]; id != "" && c.FrontendNSG == "" {
		retired = union(retired, []string{id})
	}
	retired = union(retired, m.retiring[c.key()])
	retired = slices.DeleteFunc(retired, func(id string) bool { return id == c.FrontendNSG })
	for _, id := range retired {
		if id != m.frontends[c.key()] {
			m.retireLocked(c.key(), id)
		}
	}
	if hadOld {
		oldLists, _ := ListsOf(old, m.subnets, m.opts.Policy) // a list we cannot name, we cannot clean
		lists = union(lists, oldLists)
	}
	lists = slices.DeleteFunc(lists, func(id string) bool { return slices.Contains(retired, id) })
	// An unchanged claim whose lists were all written (or found right) since the last change
	// anywhere has nothing to write: no need to compute every Service's rules again, which a
	// node sync would otherwise do once per Service.
	settled := unchanged && len(retired) == 0 && m.settledLocked(lists)
	m.mu.Unlock()
	if settled {
		return nil
	}
	if err := m.waitForLists(ctx, c.key(), lists); err != nil {
		return err
	}
	subnets := c.LBSubnets
	if hadOld {
		subnets = union(subnets, old.LBSubnets)
	}
	return m.deleteFrontends(ctx, c.key(), retired, subnets)
}

// Delete drops the claim of c.Service and returns once the rules only it needed are gone from
// every list. c names the Service; its subnets, if given, are visited as well as those of the
// claim the Manager holds, so rules are cleaned up even for a Service this process never saw
// (deleted while the CCM was down). Pass the subnets the Service's load balancer is in.
// Before Prime nothing is removed (see Manager); the rules then go at the first write to their
// lists after Prime.
//
// The Service also loses its frontend NSG, whatever its mode now (one it had in mode NSG is
// remembered until OCI confirms it deleted, or found by its tags in the VCN of its subnets),
// after the rules naming it in the backend NSGs (pass the claim of its desired Spec in mode NSG,
// so its backend NSGs are visited too): call Delete after its load balancer is gone, because
// OCI refuses to delete an NSG a load balancer is in (the error is returned; a later Delete
// retries). A 404 from the delete is believed only once a read or a listing confirms it.
func (m *Manager) Delete(ctx context.Context, c Claim) error {
	if c.Service.Name == "" {
		return fmt.Errorf("%w: service name is empty", ErrInvalid)
	}
	m.mu.Lock()
	old, hadOld := m.claims[c.key()]
	m.mu.Unlock()
	ids := m.opts.Policy.subnetsUsed(c)
	if hadOld {
		ids = union(ids, m.opts.Policy.subnetsUsed(old))
	}
	if _, err := m.knowSubnets(ctx, ids); err != nil { // a subnet that is gone has no list to clean
		return fmt.Errorf("service %s: %w", c.key(), err)
	}
	frontend, err := m.frontendToDelete(ctx, c, old)
	if err != nil {
		return fmt.Errorf("service %s: %w", c.key(), err)
	}
	m.mu.Lock()
	frontends := union(m.retiring[c.key()], nil)
	m.mu.Unlock()
	if frontend != "" {
		frontends = union([]string{frontend}, frontends)
	}

	m.mu.Lock()
	var lists []string
	for _, claim := range []Claim{c, m.claims[c.key()]} {
		l, _ := ListsOf(claim, m.subnets, m.opts.Policy) // a list we cannot name, we cannot clean
		lists = union(lists, l)
	}
	// The frontend NSG goes with its rules; the rules naming it in backend NSGs go first.
	lists = slices.DeleteFunc(lists, func(id string) bool { return slices.Contains(frontends, id) })
	delete(m.claims, c.key())
	delete(m.unknown, c.key())
	m.version++
	m.touch(c.key())
	m.mu.Unlock()
	if err := m.waitForLists(ctx, c.key(), lists); err != nil {
		return err
	}
	return m.deleteFrontends(ctx, c.key(), frontends, union(c.LBSubnets, old.LBSubnets))
}

// unknownLocked returns the Services whose claims are unknown, sorted: primed as Unknown, or in
// mode NSG with no frontend NSG found yet (its rules cannot be computed). Guarded by mu.
func (m *Manager) unknownLocked() []string {
	out := slices.Collect(maps.Keys(m.unknown))
	for svc, c := range m.claims {
		if c.FrontendNSG == "" && m.opts.Policy.mode(c) == config.SecurityListModeNSG {
			out = append(out, svc)
		}
	}
	slices.Sort(out)
	return out
}

// snapshotLocked returns the claims the Manager holds, sorted by Service. Guarded by mu.
func (m *Manager) snapshotLocked() []Claim {
	out := make([]Claim, 0, len(m.claims))
	for _, k := range slices.Sorted(maps.Keys(m.claims)) {
		out = append(out, m.claims[k])
	}
	return out
}

// waitForLists asks the writer of every list to write and waits for all of them. Errors are
// joined; each names its list.
func (m *Manager) waitForLists(ctx context.Context, service string, lists []string) error {
	if len(lists) == 0 {
		return nil
	}
	results := make([]<-chan error, len(lists))
	for i, id := range lists {
		results[i] = m.writerFor(id).request(ctx)
	}
	var errs []error
	for i, ch := range results {
		select {
		case err := <-ch:
			if err != nil {
				errs = append(errs, err)
			}
		case <-ctx.Done():
			return fmt.Errorf("service %s: waiting for security list %s: %w", service, lists[i], ctx.Err())
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("service %s: %w", service, err)
	}
	return nil
}

// loggerFor is Options.Logger, else the logger ctx carries.
func (m *Manager) loggerFor(ctx context.Context) klog.Logger {
	if m.logger.GetSink() != nil {
		return m.logger
	}
	return klog.FromContext(ctx).WithName("seclist")
}

func (m *Manager) writerFor(id string) *writer {
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.writers[id]
	if !ok {
		w = &writer{id: id, m: m}
		m.writers[id] = w
	}
	return w
}

// refreshSubnets reads every subnet in ids from OCI and records it. Any failure is returned:
// the caller's claim names these subnets, so not finding one is the caller's problem.
func (m *Manager) refreshSubnets(ctx context.Context, ids []string) error {
	var errs []error
	for _, id := range ids {
		s, err := m.vn.GetSubnet(ctx, id)
		if err != nil {
			errs = append(errs, fmt.Errorf("reading subnet %s: %w", id, err))
			continue
		}
		m.mu.Lock()
		m.recordSubnetLocked(id, subnetFromOCI(s))
		m.mu.Unlock()
	}
	return errors.Join(errs...)
}

// knowSubnets reads the subnets in ids that the Manager has no details for. It returns those OCI
// answered 404 for: deleted, or hidden by a missing IAM policy (OCI does not say which). Any
// other failure is an error, because going on without a subnet's details could drop rules that
// are still needed.
func (m *Manager) knowSubnets(ctx context.Context, ids []string) (unreadable []string, err error) {
	var missing []string
	m.mu.Lock()
	for _, id := range ids {
		if _, ok := m.subnets[id]; !ok {
			missing = append(missing, id)
		}
	}
	m.mu.Unlock()
	var errs []error
	for _, id := range missing {
		s, err := m.vn.GetSubnet(ctx, id)
		switch {
		case err == nil:
			m.mu.Lock()
			m.recordSubnetLocked(id, subnetFromOCI(s))
			m.mu.Unlock()
		case ociclient.IsNotFound(err):
			unreadable = append(unreadable, id)
		default:
			errs = append(errs, fmt.Errorf("reading subnet %s: %w", id, err))
		}
	}
	return unreadable, errors.Join(errs...)
}

// recordSubnetLocked records a subnet's details, counting a change of them as a change of what
// rules are computed from. Guarded by mu.
func (m *Manager) recordSubnetLocked(id string, s Subnet) {
	if old, ok := m.subnets[id]; ok && old.ID == s.ID && old.CIDR == s.CIDR && slices.Equal(old.SecurityListIDs, s.SecurityListIDs) {
		return
	}
	m.subnets[id] = s
	m.version++
}

// settledLocked says whether the last sync of every list in ids succeeded at the current
// version, and what the writer knows of the list is recent enough to write against (see
// writer.settled). Guarded by mu.
func (m *Manager) settledLocked(ids []string) bool {
	for _, id := range ids {
		w, ok := m.writers[id]
		if !ok || !w.settled(m.version, m.now(), m.opts.MaxListAge) {
			return false
		}
	}
	return true
}

// sameClaim says whether two claims ask for the same rules: equal field by field, an empty list
// equal to none, and the subnets, CIDRs and NSGs (every []string of a Claim is a set) in any
// order. A Service's claim at start-up (Prime) comes from its desired Spec, whose subnets are in
// the configured order, and its reconciles' from the load balancer as OCI reports it, whose
// subnets OCI may list in another: were that a change, the first reconcile of every Service
// after a restart would recompute every Service's rules, O(Services²) in all.
func sameClaim(a, b Claim) bool {
	return gocmp.Equal(a, b, cmpopts.EquateEmpty(), cmpopts.SortSlices(func(x, y string) bool { return x < y }))
}

func cloneClaim(c Claim) Claim {
	c.LBSubnets = slices.Clone(c.LBSubnets)
	c.NodeSubnets = slices.Clone(c.NodeSubnets)
	c.ListenerPorts = slices.Clone(c.ListenerPorts)
	c.SourceCIDRs = slices.Clone(c.SourceCIDRs)
	c.NodePorts = slices.Clone(c.NodePorts)
	c.UDPListenerPorts = slices.Clone(c.UDPListenerPorts)
	c.UDPNodePorts = slices.Clone(c.UDPNodePorts)
	c.BackendNSGs = slices.Clone(c.BackendNSGs)
	return c
}

// union returns a followed by the elements of b not in a.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// usesNSGs reports whether a Service of the cluster is in mode NSG.
func (m *Manager) usesNSGs() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.claims {
		if m.opts.Policy.mode(c) == config.SecurityListModeNSG {
			return true
		}
	}
	return false
}
