// pprof-demo records the CPU and heap profiles in this folder
// (pprof-cpu.pb.gz, pprof-heap.pb.gz): see README.md.
//
//	go run pprof-demo.go
package main

import (
	"crypto/sha256"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"time"
)

var sink []byte
var keep [][]byte

// small is inlined into its callers by the Go compiler.
func small(x int) int { return x*x + 1 }

func hashLoop(d time.Duration) {
	buf := make([]byte, 4096)
	for end := time.Now().Add(d); time.Now().Before(end); {
		s := sha256.Sum256(buf)
		buf[0] = s[0]
	}
}

func sortLoop(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		v := make([]int, 2000)
		for i := range v {
			v[i] = small(len(v) - i)
		}
		sort.Ints(v)
	}
}

func allocate() {
	for i := 0; i < 2000; i++ {
		b := make([]byte, 1024+i)
		if i%10 == 0 {
			keep = append(keep, b)
		}
		sink = b
	}
}

func allocateMore() {
	for i := 0; i < 500; i++ {
		keep = append(keep, make([]byte, 8192))
	}
}

func main() {
	runtime.MemProfileRate = 4096
	cpu, err := os.Create("pprof-cpu.pb.gz")
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		panic(err)
	}
	done := make(chan bool)
	go func() { hashLoop(500 * time.Millisecond); done <- true }()
	sortLoop(500 * time.Millisecond)
	<-done
	pprof.StopCPUProfile()
	cpu.Close()

	allocate()
	allocateMore()
	runtime.GC()
	heap, err := os.Create("pprof-heap.pb.gz")
	if err != nil {
		panic(err)
	}
	if err := pprof.WriteHeapProfile(heap); err != nil {
		panic(err)
	}
	heap.Close()
}
