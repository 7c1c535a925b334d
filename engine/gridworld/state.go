package gridworld

import (
	"maps"
	"math"
	"slices"
	"sort"
)

// Physical constants of the original (spec §4.2).
const (
	WalkingSpeed     = 5.0  // blocks per second
	FlyingSpeed      = 15.0 // blocks per second
	Gravity          = 20.0 // blocks per second²
	MaxJumpHeight    = 1.2
	TerminalVelocity = 50.0
	PlayerHeight     = 2
	// JumpSpeed = √(2·Gravity·MaxJumpHeight).
	JumpSpeed = 6.928203230275509
	// StepSeconds is the simulated time of one environment step.
	StepSeconds = 0.05
	// RestEyeY is the eye height of an agent standing on the ground (1.25 above its surface).
	RestEyeY = -0.25
	// GroundY is the y of the ground blocks; GroundHalfExtent their extent in x and z.
	GroundY          = -2
	GroundHalfExtent = 18
	// HitDistance is the ray-cast range of the environment, in blocks.
	HitDistance  = 8
	collisionPad = 0.25
)

// Camera of the first-person view (spec §10). A renderer must use these to match the
// original's pov observation.
const (
	// CameraFOVY is the vertical field of view in degrees; the aspect ratio is width/height.
	CameraFOVY = 90.0
	// CameraNear and CameraFar are the clip distances.
	CameraNear = 0.1
	CameraFar  = 30.0
	// CameraEyeOffset is the height of the camera above State.Position: zero, the position
	// is the eye.
	CameraEyeOffset = 0.0
)

// Sky colour (clear colour) of the pov image in a 24-bit buffer.
var SkyColor = [3]uint8{128, 176, 255}

// Vec3 is a continuous point or vector (x, y, z), y up.
type Vec3 [3]float64

// Focus is the result of the ray cast from the eye along the sight vector: the first block hit
// and the cell sampled just before it (where a block would be placed).
type Focus struct {
	Hit, Before       [3]int
	HasHit, HasBefore bool
}

// World cells. Only the build zone changes in play (a block is placed only inside it, and the
// ground cannot be broken), so only the zone is stored densely, as in Grid's layout; the ground
// is computed; anything else a world was initialised with lives in a map, which also records a
// ground cell that was replaced or removed. An environment's world is thus about a kilobyte: a
// batch of hundreds of environments stays in the caches.
const (
	cellPlaced = 0x10 // flag: added after the ground (removed on reset)
	cellIDMask = 0x0f // id + 2

	groundWhite = uint8(White + 2)
	groundGrey  = uint8(Grey + 2)
)

type key3 [3]int

// State is the world (ground and placed blocks, the build-zone grid) plus the agent
// (position, rotation, velocity, inventory). An Env owns one; renderers read it through the
// exported methods. A State is not safe for concurrent use while its Env steps.
//
// Renderer conventions (spec §10): the camera is at Position() (no extra eye offset; an agent
// standing on the ground has its eye at y = -0.25, 1.25 above the ground surface y = -1.5);
// vertical field of view CameraFOVY = 90° with aspect width/height, near 0.1, far 30. Yaw is in
// degrees about +y: yaw 0 looks towards -z, yaw +90 towards +x. Pitch is in degrees, positive
// looks up, clamped to [-90, 90]. The view is lookAt(Position, Position + Sight(), up = +y).
// Ground blocks (y = -2, x and z in [-18, 18]) draw only their top face; coloured blocks draw six
// faces with the shades of spec §3.2; no lighting, no fog, sky colour SkyColor.
type State struct {
	zone    [NumCells]uint8 // the build zone's cells in Grid's layout: id+2 | cellPlaced, 0 empty
	extra   map[key3]uint8  // cells outside the zone that differ from groundCell (0: removed)
	placed  []key3
	grid    Grid
	changed []int32 // flat grid indices changed since the env last looked
	version uint64

	pos        Vec3
	yaw, pitch float64
	flying     bool
	strafe     [2]float64
	dy         float64
	subSteps   int
	inventory  [NumColors]int
	active     int

	motionTrig, pitchTrig, sightTrig trigCache
	strafeS0, strafeS1, strafeA      float64 // cache of strafeAngle
	strafeOK                         bool
}

type trigCache struct {
	arg, s, c float64
	ok        bool
}

func (t *trigCache) get(a float64) (float64, float64) {
	if !t.ok || t.arg != a {
		t.s, t.c = sinCosDeg(a)
		t.arg, t.ok = a, true
	}
	return t.s, t.c
}

func newStateEmpty() *State {
	s := &State{subSteps: 2, active: Blue}
	for i := range s.inventory {
		s.inventory[i] = InitialInventory
	}
	return s
}

// NewState builds a stand-alone world with the ground and the given blocks (all treated as
// placed) and an agent at pos with the given rotation. It is meant for renderers and tools
// that need a State without an Env (e.g. the pov reference frames).
func NewState(blocks []Block, pos Vec3, yaw, pitch float64) *State {
	s := newStateEmpty()
	for _, b := range blocks {
		s.addBlock(b.X, b.Y, b.Z, b.ID)
	}
	s.changed = s.changed[:0]
	s.pos, s.yaw, s.pitch = pos, yaw, pitch
	return s
}

// zoneIndex is the flat Grid index of (x, y, z) when it lies in the build zone.
func zoneIndex(x, y, z int) (int, bool) {
	ux, uy, uz := uint(x+5), uint(y+1), uint(z+5)
	if ux >= SizeX || uy >= SizeY || uz >= SizeZ {
		return 0, false
	}
	return (int(uy)*SizeX+int(ux))*SizeZ + int(uz), true
}

// groundCell is the cell of a fresh world outside the build zone: the ground's blocks at
// y = GroundY (white under the zone, grey around it), air elsewhere.
func groundCell(x, y, z int) uint8 {
	if y != GroundY || uint(x+GroundHalfExtent) > 2*GroundHalfExtent || uint(z+GroundHalfExtent) > 2*GroundHalfExtent {
		return 0
	}
	if uint(x+5) <= 10 && uint(z+5) <= 10 {
		return groundWhite
	}
	return groundGrey
}

func (s *State) cell(x, y, z int) uint8 {
	if i, ok := zoneIndex(x, y, z); ok {
		return s.zone[i]
	}
	if s.extra != nil {
		if v, ok := s.extra[key3{x, y, z}]; ok {
			return v
		}
	}
	return groundCell(x, y, z)
}

func (s *State) setCell(x, y, z int, v uint8) {
	if i, ok := zoneIndex(x, y, z); ok {
		s.zone[i] = v
		return
	}
	if v == groundCell(x, y, z) {
		delete(s.extra, key3{x, y, z})
		return
	}
	if s.extra == nil {
		s.extra = make(map[key3]uint8)
	}
	s.extra[key3{x, y, z}] = v
}

func (s *State) has(x, y, z int) bool { return s.cell(x, y, z) != 0 }

// BlockAt returns the id of the block at (x, y, z) (ground included) and whether there is one.
func (s *State) BlockAt(x, y, z int) (int, bool) {
	c := s.cell(x, y, z)
	if c == 0 {
		return 0, false
	}
	return int(c&cellIDMask) - 2, true
}

func gridFlatIndex(x, y, z int) int32 { return int32(((y+1)*SizeX+(x+5))*SizeZ + (z + 5)) }

// addBlock adds a placed block, replacing what was there (spec §4.1).
func (s *State) addBlock(x, y, z, id int) {
	if s.has(x, y, z) {
		s.removeBlock(x, y, z)
	}
	s.setCell(x, y, z, uint8(id+2)|cellPlaced)
	s.placed = append(s.placed, key3{x, y, z})
	if InZone(x, y, z) {
		s.grid[y+1][x+5][z+5] = int8(id)
		s.changed = append(s.changed, gridFlatIndex(x, y, z))
	}
	s.version++
}

func (s *State) removeBlock(x, y, z int) {
	s.setCell(x, y, z, 0)
	if InZone(x, y, z) {
		s.grid[y+1][x+5][z+5] = 0
		s.changed = append(s.changed, gridFlatIndex(x, y, z))
	}
	s.version++
}

// clearPlaced removes every placed block (reset step 4).
func (s *State) clearPlaced() {
	for _, k := range s.placed {
		if s.cell(k[0], k[1], k[2])&cellPlaced != 0 {
			s.removeBlock(k[0], k[1], k[2])
		}
	}
	s.placed = s.placed[:0]
}

// ---- read-only accessors (renderer seam) ----

// Position returns the agent's eye position.
func (s *State) Position() Vec3 { return s.pos }

// Yaw returns the yaw in degrees (0 looks towards -z, +90 towards +x).
func (s *State) Yaw() float64 { return s.yaw }

// Pitch returns the pitch in degrees (positive looks up).
func (s *State) Pitch() float64 { return s.pitch }

// Flying reports whether the agent flies.
func (s *State) Flying() bool { return s.flying }

// VerticalSpeed returns dy in blocks per second.
func (s *State) VerticalSpeed() float64 { return s.dy }

// SubSteps returns the number of physics sub-steps the next update will use.
func (s *State) SubSteps() int { return s.subSteps }

// Inventory returns the block count per colour (slot k holds colour k+1).
func (s *State) Inventory() [NumColors]int { return s.inventory }

// ActiveBlock returns the selected colour (1..6).
func (s *State) ActiveBlock() int { return s.active }

// Grid returns a copy of the build-zone grid.
func (s *State) Grid() Grid { return s.grid }

// GridRef returns the live build-zone grid. Callers must not modify it.
func (s *State) GridRef() *Grid { return &s.grid }

// Version changes whenever a block is added or removed (renderers can cache meshes on it).
func (s *State) Version() uint64 { return s.version }

// Sight returns the unit sight vector (spec §5.4).
func (s *State) Sight() Vec3 {
	ps, pc := s.pitchTrig.get(s.pitch)
	ys, yc := s.sightTrig.get(s.yaw - 90)
	return Vec3{float64(yc * pc), ps, float64(ys * pc)}
}

// Focus ray-casts from the eye along the sight vector over HitDistance blocks.
func (s *State) Focus() Focus { return s.hitTest(s.pos, s.Sight(), HitDistance) }

// HitTest ray-casts from pos along the unit vector dir, sampling every 0.2 blocks over
// maxDist blocks exactly like the original (spec §6.5).
func (s *State) HitTest(pos, dir Vec3, maxDist int) Focus { return s.hitTest(pos, dir, maxDist) }

// AppendBlocks appends every block of the world to dst and returns it, sorted by (y, x, z).
// Ground blocks (id -1 or 0 at y = -2 that were not placed) are included when withGround is true.
func (s *State) AppendBlocks(dst []Block, withGround bool) []Block {
	start := len(dst)
	for i, c := range s.zone {
		if c == 0 || (!withGround && c&cellPlaced == 0) {
			continue
		}
		dst = append(dst, Block{i/SizeZ%SizeX - 5, i/(SizeX*SizeZ) - 1, i%SizeZ - 5, int(c&cellIDMask) - 2})
	}
	if withGround {
		for x := -GroundHalfExtent; x <= GroundHalfExtent; x++ {
			for z := -GroundHalfExtent; z <= GroundHalfExtent; z++ {
				if _, changed := s.extra[key3{x, GroundY, z}]; !changed {
					dst = append(dst, Block{x, GroundY, z, int(groundCell(x, GroundY, z)) - 2})
				}
			}
		}
	}
	for k, c := range s.extra {
		if c != 0 && (withGround || c&cellPlaced != 0) {
			dst = append(dst, Block{k[0], k[1], k[2], int(c&cellIDMask) - 2})
		}
	}
	out := dst[start:]
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Y != b.Y {
			return a.Y < b.Y
		}
		if a.X != b.X {
			return a.X < b.X
		}
		return a.Z < b.Z
	})
	return dst
}

// IsGround reports whether the block at (x, y, z) is an original ground block.
func (s *State) IsGround(x, y, z int) bool {
	c := s.cell(x, y, z)
	return c != 0 && c&cellPlaced == 0
}

// ---- physics ----

// motionVector implements spec §5.3.
func (s *State) motionVector() (float64, float64, float64) {
	s0, s1 := s.strafe[0], s.strafe[1]
	if s0 == 0 && s1 == 0 {
		return 0, 0, 0
	}
	if !s.strafeOK || s0 != s.strafeS0 || s1 != s.strafeS1 || math.Signbit(s0) != math.Signbit(s.strafeS0) {
		s.strafeS0, s.strafeS1, s.strafeA, s.strafeOK = s0, s1, strafeAngle(s0, s1), true
	}
	a := s.strafeA
	ys, yc := s.motionTrig.get(s.yaw + a)
	if !s.flying {
		return yc, 0, ys
	}
	ps, pc := s.pitchTrig.get(s.pitch)
	m, v := pc, ps
	if s1 != 0 {
		v, m = 0, 1
	}
	if s0 > 0 {
		v = -v
	}
	return float64(yc * m), v, float64(ys * m)
}

// collide implements spec §5.5.
func (s *State) collide(p Vec3) Vec3 {
	bx, by, bz := BlockOf(p[0], p[1], p[2])
	b := [3]int{bx, by, bz}
	for f := 0; f < 6; f++ {
		axis := faceAxis[f]
		sign := faceSign[f]
		o := (p[axis] - float64(b[axis])) * float64(sign)
		if o < collisionPad {
			continue
		}
		for k := 0; k < 2; k++ {
			q := b
			q[axis] += sign
			q[1] -= k
			if s.has(q[0], q[1], q[2]) {
				p[axis] -= (o - collisionPad) * float64(sign)
				if axis == 1 {
					s.dy = 0
				}
				break
			}
		}
	}
	return p
}

var (
	faceAxis = [6]int{1, 1, 0, 0, 2, 2}
	faceSign = [6]int{1, -1, -1, 1, 1, -1}
)

// Collide applies the collision correction to a candidate point (spec §5.5) and returns the
// corrected point; it zeroes the vertical speed on floor or ceiling contact.
func (s *State) Collide(p Vec3) Vec3 { return s.collide(p) }

// MotionVector returns the current motion vector (spec §5.3) for the accumulated strafe.
func (s *State) MotionVector() Vec3 {
	x, y, z := s.motionVector()
	return Vec3{x, y, z}
}

func (s *State) subStep(h float64) {
	speed := WalkingSpeed
	if s.flying {
		speed = FlyingSpeed
	}
	d := float64(h * speed)
	mx, my, mz := s.motionVector()
	ex, ey, ez := float64(mx*d), float64(my*d), float64(mz*d)
	if !s.flying {
		s.dy -= float64(h * Gravity)
		switch {
		case s.dy < -14:
			s.subSteps = 12
		case s.dy < -10:
			s.subSteps = 8
		case s.dy < -5:
			s.subSteps = 4
		default:
			s.subSteps = 2
		}
		s.dy = math.Max(s.dy, -TerminalVelocity)
	}
	ey += float64(s.dy * h)
	c := Vec3{s.pos[0] + ex, s.pos[1] + ey, s.pos[2] + ez}
	if inZonePad(c[0], c[1], c[2], 2) {
		s.pos = s.collide(c)
	} else if !s.flying {
		s.pos = s.collide(Vec3{s.pos[0], s.pos[1] + ey, s.pos[2]})
	}
}

// update runs one physics update of StepSeconds (spec §5.1).
func (s *State) update() {
	n := s.subSteps
	h := StepSeconds / float64(n)
	for i := 0; i < n; i++ {
		s.subStep(h)
	}
	s.strafe = [2]float64{}
	if s.flying {
		s.dy = 0
	}
}

func (s *State) hitTest(pos, dir Vec3, maxDist int) Focus {
	const m = 5
	x, y, z := pos[0], pos[1], pos[2]
	// The same sums as the original's x + dir/m each sample: the quotient is the same number
	// every time, so it is computed once.
	dx, dy, dz := dir[0]/m, dir[1]/m, dir[2]/m
	// Without blocks outside the zone, every block lies in the ground's slab: a sample beyond
	// it that moves away from it (or parallel to it) can hit nothing any more.
	bounded := len(s.extra) == 0
	var f Focus
	var prev [3]int
	hasPrev := false
	for i := 0; i < maxDist*m; i++ {
		kx, ky, kz := BlockOf(x, y, z)
		k := [3]int{kx, ky, kz}
		if !hasPrev || k != prev {
			if s.has(kx, ky, kz) {
				f.Hit, f.HasHit = k, true
				f.Before, f.HasBefore = prev, hasPrev
				return f
			}
			if bounded && (ky > solidYMax && dy >= 0 || ky < GroundY && dy <= 0 ||
				kx > GroundHalfExtent && dx >= 0 || kx < -GroundHalfExtent && dx <= 0 ||
				kz > GroundHalfExtent && dz >= 0 || kz < -GroundHalfExtent && dz <= 0) {
				return f
			}
		}
		prev, hasPrev = k, true
		x, y, z = x+dx, y+dy, z+dz
	}
	return f
}

// solidYMax is the highest y a block can have without blocks outside the zone.
const solidYMax = SizeY - 2

// applyMove adds strafe and vertical input and selects a colour (spec §5.6).
func (s *State) applyMove(s0, s1, u float64, sel int) {
	s.strafe[0] += s0
	s.strafe[1] += s1
	if u != 0 {
		if s.dy == 0 {
			s.dy = float64(JumpSpeed * u)
		}
	} else if s.flying {
		s.dy = 0
	}
	if sel != 0 {
		s.active = sel
	}
}

func (s *State) applyCamera(dyaw, dpitch float64) {
	s.yaw += dyaw
	s.pitch = math.Max(-90, math.Min(90, s.pitch+dpitch))
}

func (s *State) wrapYaw() {
	for s.yaw > 360 {
		s.yaw -= 360
	}
	for s.yaw < 0 {
		s.yaw += 360
	}
}

// placeOrBreak implements spec §6.5; it uses the current rotation and position.
func (s *State) placeOrBreak(place, brk bool) {
	if place == brk {
		return
	}
	f := s.hitTest(s.pos, s.Sight(), HitDistance)
	if place {
		if !f.HasBefore {
			return
		}
		bx, by, bz := f.Before[0], f.Before[1], f.Before[2]
		if s.inventory[s.active-1] <= 0 || !InZone(bx, by, bz) {
			return
		}
		x, y, z := s.pos[0], s.pos[1], s.pos[2]
		fy := y - 0.75
		fx, fby, fz := float64(bx), float64(by), float64(bz)
		if fx-0.5 <= x && x <= fx+0.5 && fz-0.5 <= z && z <= fz+0.5 &&
			((fby <= fy && fy <= fby+1) || (fby <= fy+1 && fy+1 <= fby+1)) {
			return
		}
		s.addBlock(bx, by, bz, s.active)
		s.inventory[s.active-1]--
		return
	}
	if !f.HasHit {
		return
	}
	id, _ := s.BlockAt(f.Hit[0], f.Hit[1], f.Hit[2])
	if id == White || id == Grey {
		return
	}
	s.removeBlock(f.Hit[0], f.Hit[1], f.Hit[2])
	if id >= 1 && id <= NumColors {
		s.inventory[id-1]++
	}
}

// PlaceOrBreak performs a place (place=true) or break (brk=true) from the current pose as one
// environment step would (spec §6.5); requesting both or neither does nothing. It is exported
// for tools and tests; Env.Step calls it as part of a step.
func (s *State) PlaceOrBreak(place, brk bool) { s.placeOrBreak(place, brk) }

// Clone returns an independent copy of the state: tools try an action on the copy to say what
// it would do without touching the env (the Gridworld workspace explains a place that would
// place nothing before spending a step on it).
func (s *State) Clone() *State {
	c := *s
	c.extra = maps.Clone(s.extra)
	c.placed = slices.Clone(s.placed)
	c.changed = slices.Clone(s.changed)
	return &c
}

// Update runs one physics update, the part of every environment step after the action's
// moves, camera and place or break (spec §5.1); tools and tests call it on a Clone.
func (s *State) Update() { s.update() }

// SetPose sets position and rotation (tools and tests).
func (s *State) SetPose(pos Vec3, yaw, pitch float64) { s.pos, s.yaw, s.pitch = pos, yaw, pitch }

// SetInventory sets the inventory and the active colour (tools and tests).
func (s *State) SetInventory(inv [NumColors]int, active int) {
	s.inventory = inv
	if active >= 1 && active <= NumColors {
		s.active = active
	}
}

// SetVerticalSpeed sets dy (tools and tests).
func (s *State) SetVerticalSpeed(dy float64) { s.dy = dy }

// SetSubSteps sets the physics sub-steps of the next update (tools, and the Python binding's
// seeded resets, which start from a fresh body).
func (s *State) SetSubSteps(n int) { s.subSteps = n }

// SetStrafe sets the strafe accumulator and flying flag (tools and tests).
func (s *State) SetStrafe(s0, s1 float64, flying bool) {
	s.strafe = [2]float64{s0, s1}
	s.flying = flying
}
