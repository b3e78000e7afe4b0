import threading, hashlib, zlib, json, time
def hash_work(n):
    h = hashlib.sha256()
    for _ in range(n):
        h.update(b"y" * 1024)
def compress_work(n):
    data = json.dumps(list(range(5000))).encode()
    for _ in range(n):
        zlib.compress(data, 6)
def worker():
    t = time.time()
    while time.time() - t < 1.5:
        compress_work(3)
def main():
    th = threading.Thread(target=worker, name="compressor")
    th.start()
    t = time.time()
    while time.time() - t < 1.5:
        hash_work(500)
    th.join()
main()
