package testkit

import (
	"reflect"
	"strings"
	"testing"
)

// CheckJSONTags fails t for every exported field of v's type, and of the
// types it holds (pointers, slices, maps, structs, embedded or not), that
// has no json tag: a type written to disk says its keys, so renaming a
// field cannot change a file. Fields of types whose package is not the
// project's own (time.Time) are not entered.
func CheckJSONTags(t *testing.T, v any) {
	t.Helper()
	seen := map[reflect.Type]bool{}
	var check func(typ reflect.Type, where string)
	check = func(typ reflect.Type, where string) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] || !strings.HasPrefix(typ.PkgPath(), "github.com/mintlify-exporter/") {
			return
		}
		seen[typ] = true
		for f := range typ.Fields() {
			if f.Anonymous && f.Tag.Get("json") == "" {
				check(f.Type, where) // its fields are the parent's keys
				continue
			}
			if !f.IsExported() {
				continue
			}
			if tag, ok := f.Tag.Lookup("json"); !ok || strings.Split(tag, ",")[0] == "" {
				t.Errorf("%s.%s (%s) is written to disk without a json tag naming its key", where, f.Name, typ)
			}
			check(f.Type, where+"."+f.Name)
		}
	}
	check(reflect.TypeOf(v), reflect.TypeOf(v).String())
}
