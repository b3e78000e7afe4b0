import hashlib, zlib, json, time
def hash_loop(n):
    h = hashlib.sha256()
    for _ in range(n):
        h.update(b"x" * 4096)
    return h.hexdigest()
def compress_loop(n):
    data = json.dumps(list(range(20000))).encode()
    for _ in range(n):
        zlib.compress(data, 6)
def main():
    t = time.time()
    while time.time() - t < 2.5:
        hash_loop(2000)
        compress_loop(5)
        time.sleep(0.01)
main()
