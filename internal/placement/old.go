package placement

// keepOld keeps blocks of earlier generations on the pages that carry them
// now, where room remains after everything else: first one page per block
// (its first listed page with room, blocks in input order), then every
// further listed page with room, so that as many distinct blocks as
// possible survive.
func (st *state) keepOld() {
	old := st.in.old
	kept := make([]int32, len(old))
	for i, o := range old {
		kept[i] = -1
		for _, u := range o.URLs {
			if p := st.in.lookup(u); p >= 0 && st.pages[p].free >= o.Size {
				st.keepOldOn(p, i)
				kept[i] = p
				break
			}
		}
	}
	for i, o := range old {
		st.stamp++
		if kept[i] >= 0 {
			st.pages[kept[i]].mark = st.stamp
		}
		for _, u := range o.URLs {
			p := st.in.lookup(u)
			if p < 0 || st.pages[p].mark == st.stamp || st.pages[p].free < o.Size {
				continue
			}
			st.keepOldOn(p, i)
			st.pages[p].mark = st.stamp
		}
	}
}

func (st *state) keepOldOn(p int32, i int) {
	st.pages[p].old = append(st.pages[p].old, int32(i))
	st.consume(p, st.in.old[i].Size)
}
