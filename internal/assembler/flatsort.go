package assembler

import "math/bits"

// flatKey is the leading fields of a tool's sort key, the toolOrder
// position and the name's first sixteen bytes packed (see namePrefixes),
// with the tool's index in the registry: what the sort moves, free of
// pointers, and what a registry state keeps as its canonical order (the
// registry only grows, so the index of a tool holds in every later state).
type flatKey struct {
	rank   int
	p0, p1 uint64
	i      int
}

// less orders flat keys by (rank, p0, p1).
func (a flatKey) less(b flatKey) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	if a.p0 != b.p0 {
		return a.p0 < b.p0
	}
	return a.p1 < b.p1
}

// sameLead reports whether a and b agree on (rank, p0, p1), which leaves
// their order to the whole key.
func (a flatKey) sameLead(b flatKey) bool { return a.rank == b.rank && a.p0 == b.p0 && a.p1 == b.p1 }

// sortFlat sorts keys by (rank, p0, p1), not stably: an introsort
// (quicksort on a median of three, insertion sort for short ranges,
// heapsort past a depth of 2·log2(n), so no input costs more than
// n·log n) whose comparisons are two integer comparisons written in line.
// slices.SortFunc calls its comparison through a function value, which
// cost several times the comparison itself for the few hundred tools of a
// header.
func sortFlat(keys []flatKey) {
	quickFlat(keys, 2*bits.Len(uint(len(keys))))
}

func quickFlat(k []flatKey, depth int) {
	for len(k) > 12 {
		if depth == 0 {
			heapFlat(k)
			return
		}
		depth--
		m := len(k) / 2
		// Median of three into k[0], then a partition around it.
		a, b, c := 1, m, len(k)-1
		if k[b].less(k[a]) {
			a, b = b, a
		}
		if k[c].less(k[b]) {
			b = c
			if k[b].less(k[a]) {
				b = a
			}
		}
		k[0], k[b] = k[b], k[0]
		p := k[0]
		i, j := 1, len(k)-1
		for {
			for i <= j && k[i].less(p) {
				i++
			}
			for i <= j && p.less(k[j]) {
				j--
			}
			if i >= j {
				break
			}
			k[i], k[j] = k[j], k[i]
			i++
			j--
		}
		k[0], k[j] = k[j], k[0]
		// Recurse into the shorter side, loop on the longer.
		if j < len(k)-1-j {
			quickFlat(k[:j], depth)
			k = k[j+1:]
		} else {
			quickFlat(k[j+1:], depth)
			k = k[:j]
		}
	}
	for i := 1; i < len(k); i++ {
		for j := i; j > 0 && k[j].less(k[j-1]); j-- {
			k[j], k[j-1] = k[j-1], k[j]
		}
	}
}

func heapFlat(k []flatKey) {
	n := len(k)
	down := func(root, n int) {
		for {
			child := 2*root + 1
			if child >= n {
				return
			}
			if child+1 < n && k[child].less(k[child+1]) {
				child++
			}
			if !k[root].less(k[child]) {
				return
			}
			k[root], k[child] = k[child], k[root]
			root = child
		}
	}
	for i := n/2 - 1; i >= 0; i-- {
		down(i, n)
	}
	for i := n - 1; i > 0; i-- {
		k[0], k[i] = k[i], k[0]
		down(0, i)
	}
}
