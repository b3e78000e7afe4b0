// A small CPU workload for node --cpu-prof with known hot lines: the body of a loop
// (line 9) and a helper it calls (line 14), for about 0.4 s.
function loop(n) {
  let s = 0;
  for (let i = 0; i < n; i++) {
    if (i % 1000 === 0) {
      s += helper(i);
    }
    s = (s * 31 + Math.sqrt(i) * Math.sin(i)) % 1000003;
  }
  return s;
}
function helper(k) {
  return JSON.stringify({ k, v: [k, k + 1, k + 2] }).length;
}
const start = Date.now();
let sink = 0;
while (Date.now() - start < 400) sink += loop(100000);
console.log(sink > 0);
