// Package decryptor replaces kustomize-controller's internal/decryptor in capz-backstage's build of it
// (packages/mgmt-cluster/scripts/build-flux.sh): the same API as v1.9.6's, without SOPS and the AWS, Azure, GCP and
// Vault clients it compiles in. A Kustomization with no spec.decryption builds exactly as upstream's does (upstream's
// methods return at once without it); one with spec.decryption fails with errNoDecryption instead of decrypting.
// options.go is upstream's. Why and what it saves: docs/flux-facts.md#trimmed-kustomize-controller.
package decryptor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/resource"

	"github.com/fluxcd/pkg/cache"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
)

// DecryptionProviderSOPS is the provider upstream supports (its own constant).
const DecryptionProviderSOPS = "sops"

var errNoDecryption = errors.New("spec.decryption is not supported: this kustomize-controller is built without SOPS (capz-backstage's test build)")

// Decryptor holds what upstream's options set; it decrypts nothing.
type Decryptor struct {
	root           string
	client         client.Client
	kustomization  *kustomizev1.Kustomization
	tokenCache     *cache.TokenCache
	sopsAgeSecret  *types.NamespacedName
	vaultConfigMap *types.NamespacedName
}

// New returns a Decryptor for the Kustomization, and a cleanup that does nothing (upstream's removes a GnuPG home).
func New(client client.Client, kustomization *kustomizev1.Kustomization, opts ...Option) (*Decryptor, func(), error) {
	d := &Decryptor{client: client, kustomization: kustomization}
	for _, opt := range opts {
		opt(d)
	}
	return d, func() {}, nil
}

// IsDecryptionDisabled is upstream's: the decrypt: disabled annotation.
func IsDecryptionDisabled(annotations map[string]string) bool {
	return annotations != nil &&
		strings.EqualFold(annotations[fmt.Sprintf("%s/decrypt", kustomizev1.GroupVersion.Group)], kustomizev1.DisabledValue)
}

// IsEncryptedSecret is upstream's: a v1 Secret with a sops field (the controller refuses to apply one undecrypted).
func IsEncryptedSecret(object *unstructured.Unstructured) bool {
	if object.GetKind() == "Secret" && object.GetAPIVersion() == "v1" {
		if _, found, _ := unstructured.NestedFieldNoCopy(object.Object, "sops"); found {
			return true
		}
	}
	return false
}

// ImportKeys fails for a Kustomization that asks for decryption; without spec.decryption it does nothing, as upstream's.
func (d *Decryptor) ImportKeys(ctx context.Context) error {
	if d.kustomization.Spec.Decryption == nil {
		return nil
	}
	return errNoDecryption
}

// SetAuthOptions does nothing (reached only without spec.decryption, where upstream's returns at once too).
func (d *Decryptor) SetAuthOptions(ctx context.Context) {}

// DecryptSources does nothing (reached only without spec.decryption, where upstream's returns nil too).
func (d *Decryptor) DecryptSources(path string) error { return nil }

// DecryptResource returns nil, nil: upstream's answer without spec.decryption (the resource is applied as built).
func (d *Decryptor) DecryptResource(res *resource.Resource) (*resource.Resource, error) {
	return nil, nil
}
