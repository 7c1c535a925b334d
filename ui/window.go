package ui

import "fyne.io/fyne/v2"

// The window's size at the start: remembered with the screen it was on, used again only on a
// screen like it.

// SaveWindowSize remembers the window size for the next start, with the size of the screen it
// is on (zero when unknown): the size is used again only on a screen like it (WindowSize).
func SaveWindowSize(prefs fyne.Preferences, size, screen fyne.Size) {
	if size.Width < 100 || size.Height < 100 {
		return
	}
	prefs.SetFloat(prefWindowWidth, float64(size.Width))
	prefs.SetFloat(prefWindowHeight, float64(size.Height))
	prefs.SetFloat(prefWindowScreenWidth, float64(screen.Width))
	prefs.SetFloat(prefWindowScreenHeight, float64(screen.Height))
}

// WindowSize is the window's size at the start. screen is the monitor's size in fyne units,
// zero when unknown. The rule:
//
//   - the default is 85 % of a large screen, or all of a laptop's (narrower than 1400 or lower
//     than 860: the screens are laid out for 1024x700 whole), less screenChrome for the title
//     bar and panels; 1200x780 when the screen is unknown;
//   - the remembered size is used instead only when it suits this screen: it was saved on a
//     screen of the same size (within sameScreen), or, saved without one (before Agentdesk
//     recorded it), it covers at least half of this screen. So a window sized on a laptop
//     reopens large on a desktop monitor, and the other way round;
//   - never larger than the screen (less screenChrome), never smaller than 640x480.
func WindowSize(prefs fyne.Preferences, screen fyne.Size) fyne.Size {
	known := screen.Width > 0 && screen.Height > 0
	w, h := float32(1200), float32(780)
	switch {
	case !known:
	case screen.Width < 1400 || screen.Height < 860:
		w, h = screen.Width, screen.Height-screenChrome
	default:
		w, h = screen.Width*0.85, screen.Height*0.85
	}
	savedW := float32(prefs.FloatWithFallback(prefWindowWidth, 0))
	savedH := float32(prefs.FloatWithFallback(prefWindowHeight, 0))
	if savedW > 0 && savedH > 0 && (!known || savedSuits(prefs, fyne.NewSize(savedW, savedH), screen)) {
		w, h = savedW, savedH
	}
	if known {
		w, h = min(w, screen.Width), min(h, screen.Height-screenChrome)
	}
	return fyne.NewSize(max(w, 640), max(h, 480))
}

// sameScreen is how much two screen sizes may differ (a fraction of each side) and still be
// the same screen (scaling rounds; a panel may move).
const sameScreen = 0.05

// savedSuits reports whether a remembered window size suits screen (see WindowSize).
func savedSuits(prefs fyne.Preferences, saved, screen fyne.Size) bool {
	was := fyne.NewSize(float32(prefs.FloatWithFallback(prefWindowScreenWidth, 0)), float32(prefs.FloatWithFallback(prefWindowScreenHeight, 0)))
	if was.Width > 0 && was.Height > 0 {
		near := func(a, b float32) bool { return a >= b*(1-sameScreen) && a <= b*(1+sameScreen) }
		return near(was.Width, screen.Width) && near(was.Height, screen.Height)
	}
	return saved.Width*saved.Height >= 0.5*screen.Width*(screen.Height-screenChrome)
}

// screenChrome is the height a window manager takes for the title bar and a panel.
const screenChrome = 30
