# Replaces the PERF_RECORD_COMPRESSED records of a file-mode perf.data by the records
# their zstd payloads hold (decompressed by zstd(1): the stream is one frame across
# records), and drops the HEADER_COMPRESSED feature: a plain recording of the same records.
import struct, subprocess, sys
src, dst = sys.argv[1], sys.argv[2]
b = open(src, 'rb').read()
data_off, data_size = struct.unpack_from('<QQ', b, 40)
feat = list(struct.unpack_from('<4Q', b, 72))
# All payloads are one zstd stream: its records go where the first compressed record was,
# and the FINISHED_ROUND marks go (perf then sorts all records at the end).
records, payloads, first, at = bytearray(), b'', None, data_off
while at < data_off + data_size:
    kind, misc, size = struct.unpack_from('<IHH', b, at)
    if kind == 81:
        payloads += b[at + 8:at + size]
        first = len(records) if first is None else first
    elif kind != 68:
        records += b[at:at + size]
    at += size
# perf never ends its frame, and zstd(1) then keeps the last bytes it decoded: an empty
# last block (raw, size 0) ends the frame.
plain = subprocess.run(['zstd', '-dc'], input=payloads + b'\x01\x00\x00', capture_output=True,
                       check=True).stdout
out = records[:first] + plain + records[first:]
table = data_off + data_size
bits = [i for i in range(256) if feat[i // 64] >> (i % 64) & 1]
entries = [struct.unpack_from('<QQ', b, table + 16 * n) for n in range(len(bits))]
keep = [(bit, e) for bit, e in zip(bits, entries) if bit != 27]
feat[27 // 64] &= ~(1 << (27 % 64))
new_table = data_off + len(out)
sections_at = new_table + 16 * len(keep)
head = bytearray(b[:data_off])
struct.pack_into('<Q', head, 48, len(out))
struct.pack_into('<4Q', head, 72, *feat)
body, tab = bytearray(), bytearray()
for bit, (off, sz) in keep:
    tab += struct.pack('<QQ', sections_at + len(body), sz)
    body += b[off:off + sz]
open(dst, 'wb').write(bytes(head + out + tab + body))
