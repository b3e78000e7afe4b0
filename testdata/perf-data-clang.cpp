// perf.data fixture: a C++ program built by clang, whose DWARF 5 gives the address ranges
// of inlined subroutines as DW_FORM_rnglistx, which binutils' libbfd (perf's addr2line)
// does not read: perf script leaves those inlined frames out.
#include <algorithm>
#include <cstdlib>
#include <vector>
int main(int argc, char **argv) {
  long loops = argc > 1 ? atol(argv[1]) : 100;
  std::vector<long> v;
  long sum = 0;
  for (long i = 0; i < loops * 4096; i++) {
    v.push_back((i * 2654435761u) % 100003);
    if (v.size() == 4096) {
      std::sort(v.begin(), v.end());
      sum += v[v.size() / 2];
      v.clear();
    }
  }
  return (int)(sum & 1);
}
