// pprof-labels records pprof-labels.pb.gz in this folder, a CPU profile whose samples
// carry pprof labels (see README.md):
//
//	go run pprof-labels.go
package main

import (
	"context"
	"crypto/sha256"
	"os"
	"runtime/pprof"
	"sort"
	"sync"
)

// hashLoop and sortLoop count work, not time, so that a busy machine gives as many
// samples of each.
func hashLoop(n int) {
	buf := make([]byte, 4096)
	for i := 0; i < n; i++ {
		s := sha256.Sum256(buf)
		buf[0] = s[0]
	}
}

func sortLoop(n int) {
	for j := 0; j < n; j++ {
		v := make([]int, 3000)
		for i := range v {
			v[i] = (len(v) - i) * 7 % 1001
		}
		sort.Ints(v)
	}
}

func main() {
	f, err := os.Create("pprof-labels.pb.gz")
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	wg.Add(2)
	// Worker 1 hashes under one label; worker 2 adds a second label around its sort.
	go pprof.Do(ctx, pprof.Labels("worker", "1"), func(context.Context) {
		defer wg.Done()
		hashLoop(40000)
	})
	go pprof.Do(ctx, pprof.Labels("worker", "2"), func(ctx context.Context) {
		defer wg.Done()
		hashLoop(15000)
		pprof.Do(ctx, pprof.Labels("phase", "sort"), func(context.Context) {
			sortLoop(1500)
		})
	})
	// main itself runs without labels.
	sortLoop(1000)
	wg.Wait()
	pprof.StopCPUProfile()
	f.Close()
}
