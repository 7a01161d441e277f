// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package testcluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"

	"github.com/oci-ccm/oci-ccm/internal/proc"
)

// etcdName is etcd's member name; it only has to match --initial-cluster.
const etcdName = "testcluster"

// startEtcd starts a single-member etcd on two free loopback ports with its
// own data dir and waits until it reports healthy. It returns the client
// URL for kube-apiserver's --etcd-servers.
func (c *Cluster) startEtcd(ctx, readyCtx context.Context, binary string) (string, error) {
	return retryStart(c, readyCtx, func() (string, error) {
		ports, err := freePorts(2)
		if err != nil {
			return "", err
		}
		clientURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
		peerURL := "http://127.0.0.1:" + strconv.Itoa(ports[1])

		// A fresh data dir per attempt: a half-initialised member from a
		// failed attempt would refuse the new peer URL.
		dataDir := filepath.Join(c.dir, "etcd-data")
		if err := os.RemoveAll(dataDir); err != nil {
			return "", fmt.Errorf("clear etcd data dir: %w", err)
		}
		args := []string{
			"--name=" + etcdName,
			"--data-dir=" + dataDir,
			"--listen-client-urls=" + clientURL,
			"--advertise-client-urls=" + clientURL,
			"--listen-peer-urls=" + peerURL,
			"--initial-advertise-peer-urls=" + peerURL,
			"--initial-cluster=" + etcdName + "=" + peerURL,
			"--initial-cluster-state=new",
		}
		env := environWithout(os.Environ(), "ETCD_")
		p, err := proc.Start(ctx, "etcd", binary, args, env, filepath.Join(c.dir, "etcd.log"), nil)
		if err != nil {
			return "", err
		}
		c.etcd = p
		client := &http.Client{}
		err = pollReady(readyCtx, p, func(ctx context.Context) error {
			return etcdHealthy(ctx, client, clientURL)
		})
		if err != nil {
			p.Stop(stopGrace)
			return "", err
		}
		return clientURL, nil
	})
}

// etcdHealthy asks etcd's /health endpoint, which answers {"health":"true"}
// once the member has a leader and can serve requests.
func etcdHealthy(ctx context.Context, client *http.Client, clientURL string) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, clientURL+"/health", nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil {
		return err
	}
	var health struct {
		Health string `json:"health"`
	}
	if err := json.Unmarshal(body, &health); err != nil {
		return fmt.Errorf("etcd /health: status %d: %w", resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusOK || health.Health != "true" {
		return fmt.Errorf("etcd /health: status %d, health %q", resp.StatusCode, health.Health)
	}
	return nil
}
