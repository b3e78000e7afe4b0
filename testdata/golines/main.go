package main

import (
	"os"
	"runtime/pprof"
)

var sink uint64

// square is small enough to be inlined into work.
func square(x uint64) uint64 {
	return x * x
}

//go:noinline
func work(n int) uint64 {
	var s uint64
	for i := 0; i < n; i++ {
		s += uint64(i) ^ (s >> 3)
		s += square(uint64(i)) % 7
	}
	return s
}

//go:noinline
func spin(n int) uint64 {
	var s uint64
	for i := 0; i < n; i++ {
		s = s*31 + uint64(i)
	}
	return s
}

func main() {
	f, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(f)
	for r := 0; r < 60; r++ {
		sink += work(20_000_000)
		sink += spin(10_000_000)
	}
	pprof.StopCPUProfile()
	f.Close()
}
