package exposition

import (
	"encoding/binary"
	"hash/crc32"
	"io"
)

// storedGzipHeader opens a gzip member (RFC 1952): deflate, no flags, no
// time, unknown OS.
var storedGzipHeader = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

// maxStoredBlock is the most a stored deflate block holds (RFC 1951 3.2.4).
const maxStoredBlock = 0xffff

// appendStoredGzip appends p to dst as one gzip member of stored
// (uncompressed) deflate blocks. It is what compress/gzip writes at
// NoCompression, without the 650 KB compressor that writer allocates even
// to store: the live families of a scrape are small and change every
// time, so they are framed, not compressed (see familyWriter).
func appendStoredGzip(dst, p []byte) []byte {
	dst = append(dst, storedGzipHeader[:]...)
	rest := p
	for {
		n := min(len(rest), maxStoredBlock)
		final := byte(0)
		if n == len(rest) {
			final = 1
		}
		dst = append(dst, final)
		dst = binary.LittleEndian.AppendUint16(dst, uint16(n))
		dst = binary.LittleEndian.AppendUint16(dst, ^uint16(n))
		dst = append(dst, rest[:n]...)
		rest = rest[n:]
		if final == 1 {
			break
		}
	}
	dst = binary.LittleEndian.AppendUint32(dst, crc32.ChecksumIEEE(p))
	return binary.LittleEndian.AppendUint32(dst, uint32(len(p)))
}

// writeStoredGzip writes p to w as one stored gzip member, using buf for
// the framing (returned, grown, for reuse).
func writeStoredGzip(w io.Writer, buf, p []byte) ([]byte, error) {
	buf = appendStoredGzip(buf[:0], p)
	_, err := w.Write(buf)
	return buf, err
}
