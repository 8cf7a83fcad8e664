package exposition

import (
	"encoding/binary"
	"hash/crc32"
	"io"
)

// storedGzipHeader: deflate, no flags, no time, unknown OS (RFC 1952).
var storedGzipHeader = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

const maxStoredBlock = 0xffff // RFC 1951 3.2.4

// appendStoredGzip frames p as one gzip member of stored blocks: compress/gzip at
// NoCompression would still allocate its 650 KB compressor.
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

func writeStoredGzip(w io.Writer, buf, p []byte) ([]byte, error) {
	buf = appendStoredGzip(buf[:0], p)
	_, err := w.Write(buf)
	return buf, err
}
