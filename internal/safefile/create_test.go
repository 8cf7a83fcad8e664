//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCreateRefusesLinksAndSpecialFiles (#46 case 7): Create, the open of
// every file written in place (audit log, tracked-jobs file, journal,
// locks), never writes through a symbolic link, creates no link's target,
// and refuses a FIFO or a directory at once, naming the path and its kind.
func TestCreateRefusesLinksAndSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	precious := write(t, "shadow", []byte("root:secret\n"))
	link := filepath.Join(dir, "link")
	if err := os.Symlink(precious, link); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "created-through-the-link")
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(missing, dangling); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	fifo := mkfifo(t)
	for _, tc := range []struct{ path, kind string }{
		{link, "a symbolic link"}, {dangling, "a symbolic link"}, {fifo, "a FIFO"}, {sub, "a directory"},
	} {
		for _, flag := range []int{os.O_WRONLY | os.O_APPEND | os.O_CREATE, os.O_RDWR | os.O_CREATE} {
			err := notBlocking(t, func() error {
				f, err := Create(tc.path, flag)
				if err == nil {
					f.Write([]byte("appended\n"))
					f.Close()
				}
				return err
			})
			var nr *NotRegularError
			if !errors.As(err, &nr) || nr.Path != tc.path || !strings.Contains(err.Error(), tc.path+" is not a regular file ("+tc.kind+")") {
				t.Errorf("Create(%s, %#o) = %v, want a *NotRegularError naming it and %s", tc.path, flag, err, tc.kind)
			}
		}
	}
	if b, _ := os.ReadFile(precious); string(b) != "root:secret\n" {
		t.Errorf("the link's target now holds %q", b)
	}
	if _, err := os.Lstat(missing); err == nil {
		t.Errorf("the dangling link's target %s was created", missing)
	}
}
