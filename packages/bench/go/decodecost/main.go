// Command decodecost measures the Go heap one custom resource costs once kube-apiserver has decoded it for a watch
// cache (docs/scale.md, "The API server's memory"): JSON to unstructured maps, DeepCopyJSON (the CRD conversion
// wrapper, k8s.io/apiextensions-apiserver pkg/apiserver/conversion/converter.go), and the metadata rebuilt from
// ObjectMeta by runtime.DefaultUnstructuredConverter (schema/objectmeta/coerce.go SetObjectMeta), which turns each
// managedFields entry's fieldsV1 into nested maps. Each file is one object as the API server returns it, e.g.
//
//	kubectl get managedclusters.containerservice.azure.com -n ns name -o json --show-managed-fields > mc.json
//	go run . mc.json
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

const copies = 2000

func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// perCopy keeps `copies` results of mk alive and returns the heap bytes one of them holds.
func perCopy(raw []byte, mk func([]byte) any) float64 {
	keep := make([]any, copies)
	before := heapAlloc()
	for i := range keep {
		keep[i] = mk(raw)
	}
	after := heapAlloc()
	runtime.KeepAlive(keep)
	return float64(after-before) / copies
}

func decode(raw []byte) map[string]any {
	var m map[string]any
	if err := utiljson.Unmarshal(raw, &m); err != nil {
		panic(err)
	}
	return m
}

// asCached mirrors what a CRD's watch cache keeps for one object.
func asCached(raw []byte) any {
	u := k8sruntime.DeepCopyJSON(decode(raw))
	mb, err := json.Marshal(u["metadata"])
	if err != nil {
		panic(err)
	}
	var om metav1.ObjectMeta
	if err := json.Unmarshal(mb, &om); err != nil {
		panic(err)
	}
	md, err := k8sruntime.DefaultUnstructuredConverter.ToUnstructured(&om)
	if err != nil {
		panic(err)
	}
	u["metadata"] = md
	return u
}

// compact re-encodes an object without indentation, optionally without metadata.managedFields.
func compact(raw []byte, dropManagedFields bool) []byte {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		panic(err)
	}
	if md, ok := m["metadata"].(map[string]any); ok && dropManagedFields {
		delete(md, "managedFields")
	}
	out, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return out
}

func main() {
	fmt.Println("file\tJSON B\tcached B\tx\tJSON B without managedFields\tcached B\tx")
	for _, f := range os.Args[1:] {
		raw, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		with, without := compact(raw, false), compact(raw, true)
		a, b := perCopy(with, asCached), perCopy(without, asCached)
		fmt.Printf("%s\t%d\t%.0f\t%.1f\t%d\t%.0f\t%.1f\n", f, len(with), a, a/float64(len(with)),
			len(without), b, b/float64(len(without)))
	}
}
