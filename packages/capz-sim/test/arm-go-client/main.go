// Command arm-go-client drives the simulated ARM endpoint with the Go SDK code ASO v2.18.0's generic ARM client runs
// (github.com/Azure/azure-service-operator/v2@v2.18.0 internal/genericarmclient/generic_client.go and poller.go): an
// azcore v1.21.0 ARM pipeline (MaxRetries -1, DisableRPRegistration, bearer scope `<Audience>/.default`),
// runtime.NewPoller on each PUT/DELETE answer, the poller's resume token stored and resumed as ASO does between
// reconciles (azure_generic_arm_reconciler_instance.go), and armcontainerservice v1.0.0 for the admin credentials
// (api/containerservice/customizations/managed_cluster_extensions.go). Tokens come from the simulated Entra ID through
// azidentity's ClientSecretCredential.
//
// Between steps it prints `STEP <name>` and waits for a line on stdin, so the test can end the model's operations
// (completePendingOperations) at a known point. It ends with `RESULT <json>`.
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	armruntime "github.com/Azure/azure-sdk-for-go/sdk/azcore/arm/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice"
)

var (
	ctx     = context.Background()
	stdin   = bufio.NewReader(os.Stdin)
	pl      runtime.Pipeline
	armURL  = os.Getenv("ARM_URL")
	sub     = os.Getenv("SUBSCRIPTION")
	results = map[string]any{}
)

func must(err error, what string) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", what, err)
		os.Exit(1)
	}
}

func step(name string) {
	fmt.Printf("STEP %s\n", name)
	if _, err := stdin.ReadString('\n'); err != nil {
		must(err, "reading stdin")
	}
}

// genericResource stands for ASO's GenericResource (the poller's result type; azcore's resume tokens name it, so it
// must be a named type).
type genericResource struct {
	ID *string `json:"id,omitempty"`
}

// send is generic_client.go's request: the id joined to the endpoint, api-version, Accept, JSON body.
func send(method, id, apiVersion string, body any) (*http.Response, error) {
	req, err := runtime.NewRequest(ctx, method, runtime.JoinPaths(armURL, id))
	if err != nil {
		return nil, err
	}
	q := req.Raw().URL.Query()
	q.Set("api-version", apiVersion)
	req.Raw().URL.RawQuery = q.Encode()
	req.Raw().Header.Set("Accept", "application/json")
	if body != nil {
		if err := runtime.MarshalAsJSON(req, body); err != nil {
			return nil, err
		}
	}
	return pl.Do(req)
}

// begin is BeginCreateOrUpdateByID / BeginDeleteByID: the accepted statuses, then runtime.NewPoller and, if not
// done, the resume token ASO stores on the object.
func begin(method, id, apiVersion string, body any, ok ...int) (done bool, token string, status int, err error) {
	resp, err := send(method, id, apiVersion, body)
	if err != nil {
		return false, "", 0, err
	}
	if !runtime.HasStatusCode(resp, ok...) {
		return false, "", resp.StatusCode, runtime.NewResponseError(resp)
	}
	p, err := runtime.NewPoller[genericResource](resp, pl, nil)
	if err != nil {
		return false, "", resp.StatusCode, err
	}
	if p.Done() {
		return true, "", resp.StatusCode, nil
	}
	token, err = p.ResumeToken()
	return false, token, resp.StatusCode, err
}

// resume is poller.go's PollerResponse.Resume: a new poller from the token, one Poll, and Result once done.
func resume(token string) (done bool, errCode string, err error) {
	p, err := runtime.NewPollerFromResumeToken[genericResource](token, pl, nil)
	if err != nil {
		return false, "", err
	}
	if _, err = p.Poll(ctx); err != nil {
		return false, code(err), nil
	}
	if !p.Done() {
		return false, "", nil
	}
	if _, err = p.Result(ctx); err != nil {
		return true, code(err), nil
	}
	return true, "", nil
}

func code(err error) string {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.ErrorCode
	}
	return "error: " + err.Error()
}

func main() {
	pool := x509.NewCertPool()
	for _, f := range strings.Split(os.Getenv("CA_FILES"), ",") {
		pem, err := os.ReadFile(f)
		must(err, "reading CA")
		pool.AppendCertsFromPEM(pem)
	}
	httpClient := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	// The public cloud's ResourceManager audience (azcore arm/runtime/runtime.go), the endpoint moved to the simulator.
	cfg := cloud.Configuration{
		ActiveDirectoryAuthorityHost: os.Getenv("ENTRA_URL") + "/",
		Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: armURL, Audience: "https://management.core.windows.net/"},
		},
	}
	cred, err := azidentity.NewClientSecretCredential(os.Getenv("TENANT_ID"), os.Getenv("CLIENT_ID"),
		os.Getenv("CLIENT_SECRET"), &azidentity.ClientSecretCredentialOptions{
			ClientOptions: azcore.ClientOptions{Cloud: cfg, Transport: httpClient},
			// Without it MSAL validates a non-Microsoft authority at login.microsoftonline.com (docs/real-controllers.md#plan).
			DisableInstanceDiscovery: true,
		})
	must(err, "credential")
	opts := &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{
			Cloud:     cfg,
			Retry:     policy.RetryOptions{MaxRetries: -1},
			Transport: httpClient,
		},
		DisableRPRegistration: true,
	}
	pl, err = armruntime.NewPipeline("generic", "v0.0.0", cred, runtime.PipelineOptions{}, opts)
	must(err, "pipeline")

	rg := fmt.Sprintf("/subscriptions/%s/resourceGroups/rg-go", sub)
	mc := rg + "/providers/Microsoft.ContainerService/managedClusters/aks-go"
	const aks = "2025-08-01"

	// Resource group: synchronous PUT (body poller, done at once), then HEAD as CheckExistenceByID.
	done, _, status, err := begin(http.MethodPut, rg, "2020-06-01",
		map[string]any{"location": "westeurope", "tags": map[string]string{}}, 200, 201, 202)
	must(err, "PUT resource group")
	results["rgPut"] = map[string]any{"status": status, "done": done}
	resp, err := send(http.MethodHead, rg, "2020-06-01", nil)
	must(err, "HEAD resource group")
	results["rgHead"] = resp.StatusCode

	// Managed cluster: 201 + Azure-AsyncOperation, resumed until done, then the final GET and GetByID.
	cluster := map[string]any{
		"name": "aks-go", "location": "westeurope", "tags": map[string]string{},
		"identity": map[string]any{"type": "SystemAssigned"},
		"sku":      map[string]any{"name": "Base", "tier": "Free"},
		"properties": map[string]any{
			"dnsPrefix": "aks-go", "kubernetesVersion": "1.33.2",
			"agentPoolProfiles": []any{map[string]any{"name": "system", "mode": "System", "count": 1, "vmSize": "Standard_D2s_v5"}},
		},
	}
	done, token, status, err := begin(http.MethodPut, mc, aks, cluster, 200, 201, 202)
	must(err, "PUT managed cluster")
	first, _, err := resume(token)
	must(err, "resume")
	results["mcPut"] = map[string]any{"status": status, "doneAtOnce": done, "doneAfterFirstPoll": first,
		"tokenKind": tokenKind(token)}
	step("cluster-accepted")
	finished, errCode, err := resume(token)
	must(err, "resume")
	results["mcDone"] = map[string]any{"done": finished, "error": errCode}
	resp, err = send(http.MethodGet, mc, aks, nil)
	must(err, "GET managed cluster")
	var status_ struct {
		Sku        map[string]any `json:"sku"`
		Properties struct {
			ProvisioningState string `json:"provisioningState"`
			Fqdn              string `json:"fqdn"`
			AgentPoolProfiles []struct {
				Name string `json:"name"`
			} `json:"agentPoolProfiles"`
		} `json:"properties"`
	}
	must(runtime.UnmarshalAsJSON(resp, &status_), "GET body")
	results["mcGet"] = map[string]any{"status": resp.StatusCode, "provisioningState": status_.Properties.ProvisioningState,
		"fqdn": status_.Properties.Fqdn, "pools": len(status_.Properties.AgentPoolProfiles), "sku": status_.Sku}

	// Admin credentials through armcontainerservice v1.0.0 (api-version 2022-04-01).
	mcClient, err := armcontainerservice.NewManagedClustersClient(sub, cred, opts)
	must(err, "managed clusters client")
	creds, err := mcClient.ListClusterAdminCredentials(ctx, "rg-go", "aks-go", nil)
	must(err, "listClusterAdminCredential")
	results["adminKubeconfig"] = strings.SplitN(string(creds.Kubeconfigs[0].Value), "\n", 2)[0]

	// Agent pool: a failing create (the test planned it) and a delete.
	pool2 := mc + "/agentPools/user"
	_, token, status, err = begin(http.MethodPut, pool2, aks,
		map[string]any{"name": "user", "properties": map[string]any{"mode": "User", "count": 2}}, 200, 201, 202)
	must(err, "PUT agent pool")
	step("pool-accepted")
	finished, errCode, err = resume(token)
	must(err, "resume pool")
	results["poolPut"] = map[string]any{"status": status, "done": finished, "error": errCode}
	_, token, status, err = begin(http.MethodDelete, pool2, aks, nil, 200, 202, 204)
	must(err, "DELETE agent pool")
	results["poolDeleteTokenKind"] = tokenKind(token)
	step("pool-deleting")
	finished, errCode, err = resume(token)
	must(err, "resume pool delete")
	results["poolDelete"] = map[string]any{"status": status, "done": finished, "error": errCode}

	// An api-version AKS does not register, and the group's delete (Location poller).
	_, _, status, err = begin(http.MethodPut, mc, "2023-01-01", cluster, 200, 201, 202)
	results["unknownApiVersion"] = map[string]any{"status": status, "error": code(err)}
	done, token, status, err = begin(http.MethodDelete, rg, "2020-06-01", nil, 200, 202, 204)
	must(err, "DELETE resource group")
	finished, errCode, err = resume(token)
	must(err, "resume group delete")
	results["rgDelete"] = map[string]any{"status": status, "doneAtOnce": done, "tokenKind": tokenKind(token),
		"done": finished, "error": errCode}

	out, err := json.Marshal(results)
	must(err, "marshal")
	fmt.Printf("RESULT %s\n", out)
}

// tokenKind names the azcore poller a resume token holds: async (Azure-AsyncOperation), loc (Location), body.
func tokenKind(token string) string {
	var outer struct {
		Token json.RawMessage `json:"token"`
	}
	if json.Unmarshal([]byte(token), &outer) != nil {
		return ""
	}
	var inner map[string]any
	if json.Unmarshal(outer.Token, &inner) != nil {
		return ""
	}
	if _, ok := inner["asyncURL"]; ok {
		return "async"
	}
	if t, ok := inner["type"].(string); ok {
		return t
	}
	return "?"
}
