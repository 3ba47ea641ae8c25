package canon

import (
	"bytes"
	"slices"

	"github.com/tidwall/gjson"
)

// AppendSorted appends the canonical form of the JSON text src with the
// members of every object sorted by key, so two texts that differ only in
// key order give the same bytes. Keys sort by UTF-8 bytes, which orders
// equal key sets identically whatever the source order.
func AppendSorted(dst, src []byte) ([]byte, error) {
	compact, err := Compact(nil, src)
	if err != nil {
		return dst, err
	}
	return appendSortedValue(dst, gjson.ParseBytes(compact)), nil
}

func appendSortedValue(dst []byte, v gjson.Result) []byte {
	switch {
	case v.IsObject():
		type member struct{ key, val gjson.Result }
		var ms []member
		v.ForEach(func(k, val gjson.Result) bool {
			ms = append(ms, member{k, val})
			return true
		})
		slices.SortFunc(ms, func(a, b member) int { return bytes.Compare([]byte(a.key.Raw), []byte(b.key.Raw)) })
		dst = append(dst, '{')
		for i, m := range ms {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, m.key.Raw...)
			dst = append(dst, ':')
			dst = appendSortedValue(dst, m.val)
		}
		return append(dst, '}')
	case v.IsArray():
		dst = append(dst, '[')
		i := 0
		v.ForEach(func(_, val gjson.Result) bool {
			if i > 0 {
				dst = append(dst, ',')
			}
			i++
			dst = appendSortedValue(dst, val)
			return true
		})
		return append(dst, ']')
	}
	return append(dst, v.Raw...)
}
