package lb_test

import (
	"fmt"

	"github.com/oracle/oci-go-sdk/v65/common"
	"github.com/oracle/oci-go-sdk/v65/loadbalancer"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/oci-ccm/oci-ccm/config"
	"github.com/oci-ccm/oci-ccm/lb"
)

// A custom controller computes what a Service needs, compares it with a load balancer it read
// earlier (here a literal), and prints the plan — without credentials or calls to OCI.
func ExampleDiff() {
	cfg := &config.Config{
		CompartmentID: "ocid1.compartment.oc1..example",
		LoadBalancer: config.LoadBalancer{
			Subnet1: "ocid1.subnet.oc1.phx.example",
			Naming:  config.Naming{Scheme: config.NamingName},
		},
	}
	svc := &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "1111-2222",
			Annotations: map[string]string{string(lb.AnnotationPolicy): "LEAST_CONNECTIONS"}},
		Spec: v1.ServiceSpec{
			Type:  v1.ServiceTypeLoadBalancer,
			Ports: []v1.ServicePort{{Protocol: v1.ProtocolTCP, Port: 8080, NodePort: 31000}},
		},
	}
	node := func(name, ip string) *v1.Node {
		return &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: v1.NodeStatus{
				Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
				Addresses:  []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: ip}},
			},
		}
	}
	desired, err := lb.Desired(svc, []*v1.Node{node("a", "10.0.0.5"), node("b", "10.0.0.6")}, cfg, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	desired.Owner.Cluster = "demo"

	// The load balancer as OCI reported it: still on port 80, one backend.
	observed := lb.Observe(loadbalancer.LoadBalancer{
		Id:            common.String("ocid1.loadbalancer.oc1.phx.example"),
		DisplayName:   common.String("shop-web"),
		CompartmentId: common.String(cfg.CompartmentID),
		ShapeName:     common.String("flexible"),
		ShapeDetails:  &loadbalancer.ShapeDetails{MinimumBandwidthInMbps: common.Int(10), MaximumBandwidthInMbps: common.Int(100)},
		SubnetIds:     []string{cfg.LoadBalancer.Subnet1},
		IsPrivate:     common.Bool(false),
		FreeformTags:  desired.Owner.Tags(),
		Listeners: map[string]loadbalancer.Listener{"TCP-80": {
			Name: common.String("TCP-80"), Protocol: common.String("TCP"), Port: common.Int(80),
			DefaultBackendSetName: common.String("TCP-80"),
		}},
		BackendSets: map[string]loadbalancer.BackendSet{"TCP-80": {
			Name: common.String("TCP-80"), Policy: common.String("ROUND_ROBIN"),
			Backends: []loadbalancer.Backend{{IpAddress: common.String("10.0.0.5"), Port: common.Int(31000)}},
			HealthChecker: &loadbalancer.HealthChecker{Protocol: common.String("HTTP"), Port: common.Int(10256),
				UrlPath: common.String("/healthz"), ReturnCode: common.Int(200), Retries: common.Int(3),
				IntervalInMillis: common.Int(10000), TimeoutInMillis: common.Int(3000)},
		}},
	})

	plan, err := lb.Diff(observed, desired)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(plan)
	// Output:
	// load balancer "shop-web" (ocid1.loadbalancer.oc1.phx.example): 4 changes
	//   1. + backend set "TCP-8080"
	//        LEAST_CONNECTIONS, 2 backend(s) [10.0.0.5:31000 10.0.0.6:31000], health HTTP :10256/healthz
	//   2. + listener "TCP-8080" (after 1)
	//        TCP :8080 → backend set "TCP-8080"
	//   3. - listener "TCP-80"
	//   4. - backend set "TCP-80" (after 3)
}
