import subprocess, sys, hashlib, time
child = subprocess.Popen([sys.executable, "pyspy-child.py"])
def hash_work():
    h = hashlib.sha256()
    t = time.time()
    while time.time() - t < 1.2:
        h.update(b"z" * 4096)
hash_work()
child.wait()
