import zlib, time
t = time.time()
while time.time() - t < 1.2:
    zlib.compress(bytes(200000), 9)
