package render

import (
	"math"

	"github.com/agentdesk/agentdesk/engine/gridworld"
	"github.com/g3n/engine/math32"
)

// CameraKind selects how a Camera is interpreted.
type CameraKind int

const (
	// FirstPerson is the agent's view of spec §10: eye at Eye, rotated by Yaw and Pitch.
	FirstPerson CameraKind = iota
	// Orbit looks at Target from Distance away, placed by Azimuth and Elevation.
	Orbit
)

// Camera describes the view. Angles are in degrees; zero FOVY/Near/Far take the defaults of
// the kind (first person: 90°, 0.1, 30 as in spec §10; orbit: 50°, 0.1, 200).
type Camera struct {
	Kind CameraKind

	// FirstPerson: eye position and rotation with the environment's conventions (yaw 0 looks
	// towards -z, yaw 90 towards +x; positive pitch looks up).
	Eye        gridworld.Vec3
	Yaw, Pitch float64

	// Orbit: the camera sits at Target + Distance·(cos(el)·sin(az), sin(el), cos(el)·cos(az)),
	// looking at Target with +y up. Azimuth 0 puts the camera on the +z side looking towards
	// -z (like yaw 0); azimuth 90 puts it on the +x side. Elevation 90 looks straight down.
	Target                       gridworld.Vec3
	Distance, Azimuth, Elevation float64

	FOVY, Near, Far float64
}

// POVCamera returns the first-person camera of a state (spec §10).
func POVCamera(s *gridworld.State) Camera {
	return Camera{Kind: FirstPerson, Eye: s.Position(), Yaw: s.Yaw(), Pitch: s.Pitch()}
}

// OrbitCamera returns an orbit camera.
func OrbitCamera(target gridworld.Vec3, distance, azimuth, elevation float64) Camera {
	return Camera{Kind: Orbit, Target: target, Distance: distance, Azimuth: azimuth, Elevation: elevation}
}

// DefaultOrbit is an overview of the build zone from the front-right, slightly above.
func DefaultOrbit() Camera {
	return OrbitCamera(gridworld.Vec3{0, 0, 0}, 15, 30, 32)
}

func (c Camera) params() (fovy, near, far float64) {
	fovy, near, far = c.FOVY, c.Near, c.Far
	if c.Kind == FirstPerson {
		if fovy == 0 {
			fovy = gridworld.CameraFOVY
		}
		if near == 0 {
			near = gridworld.CameraNear
		}
		if far == 0 {
			far = gridworld.CameraFar
		}
	} else {
		if fovy == 0 {
			fovy = 50
		}
		if near == 0 {
			near = 0.1
		}
		if far == 0 {
			far = 200
		}
	}
	return
}

// mat4 is a 4×4 matrix in float64, row-major: m[r][c].
type mat4 [4][4]float64

func ident() mat4 { return mat4{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}} }

func (a mat4) mul(b mat4) mat4 {
	var o mat4
	for r := 0; r < 4; r++ {
		for c := 0; c < 4; c++ {
			var s float64
			for k := 0; k < 4; k++ {
				s += a[r][k] * b[k][c]
			}
			o[r][c] = s
		}
	}
	return o
}

// rotate is glRotate(angle°, axis): a right-handed rotation about the (normalised) axis.
func rotate(angle float64, x, y, z float64) mat4 {
	n := math.Sqrt(x*x + y*y + z*z)
	if n == 0 {
		return ident()
	}
	x, y, z = x/n, y/n, z/n
	s, c := math.Sincos(angle * math.Pi / 180)
	t := 1 - c
	return mat4{
		{x*x*t + c, x*y*t - z*s, x*z*t + y*s, 0},
		{y*x*t + z*s, y*y*t + c, y*z*t - x*s, 0},
		{z*x*t - y*s, z*y*t + x*s, z*z*t + c, 0},
		{0, 0, 0, 1},
	}
}

func translate(x, y, z float64) mat4 {
	m := ident()
	m[0][3], m[1][3], m[2][3] = x, y, z
	return m
}

func perspective(fovy, aspect, near, far float64) mat4 {
	f := 1 / math.Tan(fovy*math.Pi/360)
	return mat4{
		{f / aspect, 0, 0, 0},
		{0, f, 0, 0},
		{0, 0, (far + near) / (near - far), 2 * far * near / (near - far)},
		{0, 0, -1, 0},
	}
}

func lookAt(eye, target, up [3]float64) mat4 {
	f := norm(sub(target, eye))
	s := norm(cross(f, up))
	u := cross(s, f)
	return mat4{
		{s[0], s[1], s[2], -dot(s, eye)},
		{u[0], u[1], u[2], -dot(u, eye)},
		{-f[0], -f[1], -f[2], dot(f, eye)},
		{0, 0, 0, 1},
	}
}

func sub(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func dot(a, b [3]float64) float64    { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func norm(a [3]float64) [3]float64 {
	n := math.Sqrt(dot(a, a))
	if n == 0 {
		return a
	}
	return [3]float64{a[0] / n, a[1] / n, a[2] / n}
}

// view returns the view matrix. First person follows spec §10.4 literally: rotate by yaw about
// +y, then by -pitch about (cos yaw, 0, sin yaw), then translate by -eye (valid at |pitch| = 90
// too, where a look-at would degenerate).
func (c Camera) view() mat4 {
	if c.Kind == FirstPerson {
		yr := c.Yaw * math.Pi / 180
		return rotate(c.Yaw, 0, 1, 0).
			mul(rotate(-c.Pitch, math.Cos(yr), 0, math.Sin(yr))).
			mul(translate(-c.Eye[0], -c.Eye[1], -c.Eye[2]))
	}
	az, el := c.Azimuth*math.Pi/180, c.Elevation*math.Pi/180
	d := c.Distance
	if d <= 0 {
		d = 1
	}
	t := [3]float64(c.Target)
	eye := [3]float64{t[0] + d*math.Cos(el)*math.Sin(az), t[1] + d*math.Sin(el), t[2] + d*math.Cos(el)*math.Cos(az)}
	up := [3]float64{0, 1, 0}
	if math.Abs(math.Cos(el)) < 1e-9 { // straight above/below: keep the azimuth as "up"
		up = [3]float64{-math.Sin(az), 0, -math.Cos(az)}
		if el < 0 {
			up = [3]float64{math.Sin(az), 0, math.Cos(az)}
		}
	}
	return lookAt(eye, t, up)
}

// EyePosition returns where the camera is in world coordinates.
func (c Camera) EyePosition() gridworld.Vec3 {
	if c.Kind == FirstPerson {
		return c.Eye
	}
	az, el := c.Azimuth*math.Pi/180, c.Elevation*math.Pi/180
	t := c.Target
	return gridworld.Vec3{t[0] + c.Distance*math.Cos(el)*math.Sin(az), t[1] + c.Distance*math.Sin(el), t[2] + c.Distance*math.Cos(el)*math.Cos(az)}
}

func (c Camera) proj(aspect float64) mat4 {
	fovy, near, far := c.params()
	return perspective(fovy, aspect, near, far)
}

// toM32 converts to g3n's column-major float32 layout.
func (a mat4) toM32(dst *math32.Matrix4) {
	for r := 0; r < 4; r++ {
		for c := 0; c < 4; c++ {
			dst[c*4+r] = float32(a[r][c])
		}
	}
}

// fixedCamera implements g3n's camera.ICamera with precomputed matrices.
type fixedCamera struct{ view, proj math32.Matrix4 }

func (f *fixedCamera) ViewMatrix(m *math32.Matrix4) { *m = f.view }
func (f *fixedCamera) ProjMatrix(m *math32.Matrix4) { *m = f.proj }

// Project returns where the world point p appears in a w×h image drawn with this camera, in
// pixels from the image's top-left corner; ok is false when p lies behind the camera. The UI
// uses it to draw marks over a rendered view (where the agent aims in the orbit view).
func (c Camera) Project(p gridworld.Vec3, w, h int) (x, y float64, ok bool) {
	if w <= 0 || h <= 0 {
		return 0, 0, false
	}
	m := c.proj(float64(w) / float64(h)).mul(c.view())
	v := [4]float64{p[0], p[1], p[2], 1}
	var o [4]float64
	for r := 0; r < 4; r++ {
		for k := 0; k < 4; k++ {
			o[r] += m[r][k] * v[k]
		}
	}
	if o[3] <= 1e-9 {
		return 0, 0, false
	}
	nx, ny := o[0]/o[3], o[1]/o[3]
	return (nx + 1) / 2 * float64(w), (1 - ny) / 2 * float64(h), true
}
