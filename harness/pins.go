package harness

// PinKind says how much of a fixture's headers its golden files pin.
type PinKind string

// What a fixture's golden files pin.
const (
	// PinSidecars: the fixture is pinned ("pin": true) and owns the
	// sidecars NAME.system.md and NAME.tools.json, which hold every header
	// in full. A changed prompt or tool fails check sidecar.
	PinSidecars PinKind = "sidecars"
	// PinUniform: the fixture extends a pin without adding config,
	// sections, plugins or listeners, so its headers must equal the pin's
	// byte for byte (check uniformity).
	PinUniform PinKind = "uniform"
	// PinDeterminism: the golden log holds each header's system and tools
	// as placeholders, so only the config, that the headers are
	// deterministic (the permutation or repeat pass) and when they change
	// are checked, not what the system text and tools say. Set "pin": true
	// to check those too.
	PinDeterminism PinKind = "determinism"
)

// Pinning is what a fixture's golden files pin about its headers.
type Pinning struct {
	Kind PinKind
	// Files are the sidecars of a PinSidecars fixture.
	Files []string
	// Pin is the pinned fixture a PinUniform fixture's headers equal.
	Pin string
}

// String says it in one line, as replay -v prints it.
func (p Pinning) String() string {
	switch p.Kind {
	case PinSidecars:
		s := "pins its headers in full:"
		for _, f := range p.Files {
			s += " " + f
		}
		return s
	case PinUniform:
		return "pins its headers to the pin " + p.Pin + "'s (uniformity)"
	}
	return "pins determinism only: system and tools are placeholders in its golden log; \"pin\": true would pin their content"
}

// Pins says what f's golden files pin about its headers.
func (s *Suite) Pins(f *Fixture) Pinning {
	if f.Pin {
		return Pinning{Kind: PinSidecars, Files: []string{s.systemPath(f.Name), s.toolsPath(f.Name)}}
	}
	if pin, _ := s.uniformPin(f); pin != nil && !f.Captured() {
		return Pinning{Kind: PinUniform, Pin: pin.Name}
	}
	return Pinning{Kind: PinDeterminism}
}
