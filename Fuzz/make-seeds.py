#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (Fuzz/Corpus/<target>/seed-*), following the
formats documented in RecordCodec.swift and TupleEncoder.swift. Run it again after a format
change; scripts/fuzz.sh adds what the fuzzer finds to a working copy, not to these."""
import os, struct

here = os.path.dirname(os.path.abspath(__file__))

def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)

def signed(n):
    return varint(((n << 1) ^ (n >> 63)) & 0xFFFFFFFFFFFFFFFF)

def blob(b):
    return varint(len(b)) + b

def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF

def record(entity, key, values, relationships=(), version=2):
    """Format 2 (offset table and CRC-32C) as written today; format 1 as earlier releases did."""
    out = bytes([version]) + blob(entity.encode()) + signed(key) + varint(len(values))
    encoded = [bytes([tag]) + payload for tag, payload in values]
    if version == 2:
        offsets, position = [], 0
        for value in encoded:
            offsets.append(position)
            position += len(value)
        width = 2 if all(o <= 0xFFFF for o in offsets) else 4
        out += bytes([width]) + b"".join(o.to_bytes(width, "little") for o in offsets)
    out += b"".join(encoded)
    out += varint(len(relationships))
    for destinations in relationships:
        out += varint(len(destinations))
        for e, k in destinations:
            out += blob(e.encode()) + signed(k)
    if version == 2:
        out += struct.pack("<I", crc32c(out))
    return out

def double(d):
    return struct.pack(">d", d)

records = [
    record("Item", 1, [(3, signed(42)), (6, blob(b"Ann")), (3, signed(30)), (4, double(2.5)), (8, double(-1.0))]),
    record("Person", 123456, [(0, b""), (1, b""), (2, b""), (3, signed(-2**63)), (3, signed(2**63 - 1)),
                               (5, blob(b"-123.45")), (6, blob("é\0x".encode())), (7, blob(bytes(130))),
                               (9, bytes(range(16)))], [[("Dog", 7)], [], [("Cat", 1), ("Dog", 2)]]),
    record("E", 0, []),
    record("Item", 7, [(6, blob(b"x" * 300))]),
    record("Item", 1, [(3, signed(42)), (6, blob(b"Ann")), (3, signed(30)), (4, double(2.5))], version=1),
    record("Person", 9, [(0, b""), (7, blob(bytes(130))), (9, bytes(range(16)))], [[("Dog", 7)]], version=1),
]

def ordered_int(i):
    return bytes([0x12]) + struct.pack(">Q", (i & 0xFFFFFFFFFFFFFFFF) ^ (1 << 63))

def ordered_double(d):
    bits = struct.unpack(">Q", struct.pack(">d", 0.0 if d == 0 else d))[0]
    bits = (~bits & 0xFFFFFFFFFFFFFFFF) if bits & (1 << 63) else bits | (1 << 63)
    return bytes([0x15]) + struct.pack(">Q", bits)

def escaped(code, b):
    return bytes([code]) + b.replace(b"\0", b"\0\xff") + b"\0"

tuple_keys = [
    escaped(0x20, b"Person") + ordered_int(42),
    escaped(0x20, b"idx") + escaped(0x20, b"a\0b") + ordered_double(-2.5) + ordered_int(-1),
    bytes([0x00, 0x11, 0x01, 0x14]) + ordered_double(1e300) + escaped(0x30, bytes([0, 1, 255])),
    bytes([0x40]) + ordered_double(0)[1:] + ordered_int(0),
]

formats = [
    b"age > %d AND name BEGINSWITH[c] %@",
    b"%K IN %@",
    b"ANY friends.name LIKE 'b*' OR friends.@count > 2",
    b"nickname == nil AND score BETWEEN {0.1, 1.5}",
    b"NOT (name MATCHES '[A-Z].*') || #name CONTAINS[cd] \"e\"",
    b"age IN {1, 2, 3} AND TRUEPREDICATE",
]

imports = [
    b'[{"id": 1, "name": "Ann", "score": 2.5, "flag": true, "count": 9007199254740993,'
    b' "token": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "link": "https://example.com/a?b=c"}]',
    b'[{"id": 1, "name": "Ann"}, {"id": 1, "name": "Bob", "score": 3}, {"name": "no id"}]',
    b'{"id": true, "name": 12, "score": "2.5", "flag": 1, "count": 1.5, "token": "nope", "link": ""}',
    b'[{"id": null, "name": null}, {"id": 9223372036854775807, "name": "\u0000\ud83d\ude00"},'
    b' {"id": -9223372036854775808, "name": "x", "score": 1e308, "count": -1}]',
    b'[{"id": 2, "name": "nested", "extra": [1, [2, {"a": null}]], "flag": false}, [], 3, "x"]',
    b'{"id": 18446744073709551616, "name": "too big", "score": -0.0}',
]

for target, seeds in [("record-codec", records), ("tuple-key", tuple_keys), ("format-predicate", formats), ("import-values", imports)]:
    directory = os.path.join(here, "Corpus", target)
    os.makedirs(directory, exist_ok=True)
    for i, seed in enumerate(seeds):
        with open(os.path.join(directory, "seed-%d" % i), "wb") as f:
            f.write(seed)
