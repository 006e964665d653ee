package bundle

import (
	"errors"
	"io/fs"
	"os"
	"os/user"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// maxOwnerName bounds the user and group names an entry records and a
// payload may name; longer names are not ones a system has.
const maxOwnerName = 256

// names caches the user and group names of ids, for Collect.
var names struct {
	sync.Mutex
	users, groups map[uint32]string
}

// ownerNames returns the names of the user and group that own the file
// info describes, each empty when the system has no name for it.
func ownerNames(info fs.FileInfo) (uname, gname string) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return "", ""
	}
	names.Lock()
	defer names.Unlock()
	if names.users == nil {
		names.users, names.groups = map[uint32]string{}, map[uint32]string{}
	}
	uname, ok = names.users[st.Uid]
	if !ok {
		if u, err := user.LookupId(strconv.FormatUint(uint64(st.Uid), 10)); err == nil && len(u.Username) <= maxOwnerName {
			uname = u.Username
		}
		names.users[st.Uid] = uname
	}
	gname, ok = names.groups[st.Gid]
	if !ok {
		if g, err := user.LookupGroupId(strconv.FormatUint(uint64(st.Gid), 10)); err == nil && len(g.Name) <= maxOwnerName {
			gname = g.Name
		}
		names.groups[st.Gid] = gname
	}
	return uname, gname
}

// MaxOwners bounds the distinct user and group names an extraction looks
// up, and the owners it counts; a payload naming more gets the rest
// reported as not restored, counted under Uncounted, so hostile input
// cannot make it read the user database or grow its report without end.
const MaxOwners = 4096

// Uncounted is what the entries of owners past MaxOwners are counted
// under.
var Uncounted = Ownership{Reason: "more owners than counted"}

// Ownership counts the entries extracted that a payload records as owned
// by one user and group, by name (Report.Owners).
type Ownership struct {
	User    string `json:"user"`  // "" when not recorded
	Group   string `json:"group"` // "" when not recorded
	Entries int    `json:"entries"`
	// Restored says the entries were given this owner and group. When
	// false, Reason says why they were left owned by the user who
	// extracted them, such as "not running as root" or "no user wp
	// here".
	Restored bool   `json:"restored"`
	Reason   string `json:"reason,omitempty"`
}

// owners restores entries' owners by name where the extracting user can:
// as root, the recorded user and group where this system has them; as
// anyone else, nothing (an entry recorded as owned by the extracting user
// and its group is owned by them anyway). It counts what it did.
type owners struct {
	root          bool
	self, selfGrp string // the extracting user's name and primary group's
	mu            sync.Mutex
	users, groups map[string]int // name → id, -1 when unknown
	tally         map[Ownership]int
}

// geteuid and getegid are os.Geteuid and os.Getegid; tests extract as
// if they were another user.
var geteuid, getegid = os.Geteuid, os.Getegid

func newOwners() *owners {
	o := &owners{root: geteuid() == 0, users: map[string]int{}, groups: map[string]int{}, tally: map[Ownership]int{}}
	if u, err := user.LookupId(strconv.Itoa(geteuid())); err == nil {
		o.self = u.Username
	}
	if g, err := user.LookupGroupId(strconv.Itoa(getegid())); err == nil {
		o.selfGrp = g.Name
	}
	return o
}

// resolve returns the ids to give an entry recorded as owned by uname
// and gname (-1: leave as is) and counts the entry. Safe for concurrent
// use.
func (o *owners) resolve(uname, gname string) (uid, gid int) {
	if uname == "" && gname == "" {
		return -1, -1
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	k := Ownership{User: uname, Group: gname, Restored: true}
	uid, gid = -1, -1
	switch {
	case !o.root && (uname == "" || uname == o.self) && (gname == "" || gname == o.selfGrp):
	case !o.root:
		k.Restored, k.Reason = false, "not running as root"
	default:
		var why []string
		if uname != "" {
			if uid = o.lookup(o.users, uname, lookupUser); uid < 0 {
				why = append(why, "no user "+uname+" here")
			}
		}
		if gname != "" {
			if gid = o.lookup(o.groups, gname, lookupGroup); gid < 0 {
				why = append(why, "no group "+gname+" here")
			}
		}
		if len(why) > 0 {
			k.Restored, k.Reason = false, strings.Join(why, ", ")
		}
	}
	o.add(k)
	return uid, gid
}

// count counts one entry under k. Safe for concurrent use.
func (o *owners) count(k Ownership) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.add(k)
}

// add counts one entry under k, or under Uncounted once MaxOwners owners
// are; o.mu is held.
func (o *owners) add(k Ownership) {
	if _, ok := o.tally[k]; ok || len(o.tally) < MaxOwners {
		o.tally[k]++
	} else {
		o.tally[Uncounted]++
	}
}

// failed moves one entry of uname:gname from restored to not restored,
// because setting its owner failed.
func (o *owners) failed(uname, gname string, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	k := Ownership{User: uname, Group: gname, Restored: true}
	if n, ok := o.tally[k]; !ok { // counted under Uncounted
		return
	} else if n == 1 {
		delete(o.tally, k)
	} else {
		o.tally[k] = n - 1
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		err = errno // the reason, without the entry's name
	}
	k.Restored, k.Reason = false, "setting it failed: "+err.Error()
	o.add(k)
}

// lookup returns name's id from cache, else from find, cached; -1 when
// the system has no such name or the cache is full.
func (o *owners) lookup(cache map[string]int, name string, find func(string) (int, error)) int {
	if id, ok := cache[name]; ok {
		return id
	}
	if len(o.users)+len(o.groups) >= MaxOwners {
		return -1
	}
	id, err := find(name)
	if err != nil {
		id = -1
	}
	cache[name] = id
	return id
}

// lookupUser and lookupGroup return the id of a user or group name (a
// test counts the calls).
var lookupUser = func(name string) (int, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return -1, err
	}
	return strconv.Atoi(u.Uid)
}

var lookupGroup = func(name string) (int, error) {
	g, err := user.LookupGroup(name)
	if err != nil {
		return -1, err
	}
	return strconv.Atoi(g.Gid)
}

// report returns the counts, sorted: not restored first, then by user
// and group.
func (o *owners) report() []Ownership {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]Ownership, 0, len(o.tally))
	for k, n := range o.tally {
		k.Entries = n
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b Ownership) int {
		switch {
		case a.Restored != b.Restored:
			if !a.Restored {
				return -1
			}
			return 1
		case a.User != b.User:
			return strings.Compare(a.User, b.User)
		case a.Group != b.Group:
			return strings.Compare(a.Group, b.Group)
		}
		return strings.Compare(a.Reason, b.Reason)
	})
	return out
}

// owner is what to give one entry: the ids resolved from its recorded
// names (-1: leave as is).
type owner struct {
	own         *owners
	user, group string
	uid, gid    int
}

// set gives the entry its owner with chown, a call of fchown or
// fchownat; a failure is counted (see owners.failed), not returned.
func (o owner) set(chown func(uid, gid int) error) {
	if o.own == nil || o.uid < 0 && o.gid < 0 { // an implied directory, or nothing to set
		return
	}
	if err := ignoringEINTR(func() error { return chown(o.uid, o.gid) }); err != nil {
		o.own.failed(o.user, o.group, err)
	}
}
