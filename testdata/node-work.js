// A small CPU workload for node --cpu-prof: two named functions, an anonymous one, a class method.
const crypto = require("crypto");
function hashWork(n) {
  let h = "";
  for (let i = 0; i < n; i++) h = crypto.createHash("sha256").update(h + i).digest("hex");
  return h;
}
function sortWork(n) {
  const a = [];
  for (let i = 0; i < n; i++) a.push((i * 7919) % 10007);
  return a.sort((x, y) => x - y).length;
}
class Parser {
  parse(s) { return JSON.parse(s).length; }
}
const text = JSON.stringify(Array.from({ length: 20000 }, (_, i) => ({ i, s: "x" + i })));
const start = Date.now();
let sink = 0;
while (Date.now() - start < 1500) {
  hashWork(200);
  sink += sortWork(20000);
  sink += new Parser().parse(text);
  [1, 2, 3].forEach(function () { sink += hashWork(20).length; });
}
console.log(sink > 0);
