package plainlocale

import "testing"

func TestApply(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"LANG": "C.UTF-8"}, "en"},
		{map[string]string{"LC_ALL": "POSIX.utf8", "LANG": "de_DE.UTF-8"}, "en"},
		{map[string]string{"LANG": "C"}, ""},                                // plain C is understood already
		{map[string]string{"LANG": "fr_FR.UTF-8"}, ""},                      // a real locale is kept
		{map[string]string{"LC_ALL": "de_DE.UTF-8", "LANG": "C.UTF-8"}, ""}, // LC_ALL wins
		{map[string]string{"LANG": "C.UTF-8", "LANGUAGE": "fr"}, "fr"},      // the user's LANGUAGE is kept
		{map[string]string{}, ""},
	} {
		env := map[string]string{}
		for k, v := range c.env {
			env[k] = v
		}
		Apply(func(k string) string { return env[k] }, func(k, v string) error { env[k] = v; return nil })
		if env["LANGUAGE"] != c.want {
			t.Errorf("%v: LANGUAGE=%q, want %q", c.env, env["LANGUAGE"], c.want)
		}
	}
}
