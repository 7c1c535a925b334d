// Package gridworld is the Gridworld workspace: the IGLU voxel world of engine/gridworld played
// from the keyboard and mouse with a live reward overlay (workspace.go, input.go, overlay.go),
// drawn by a WorldRenderer (the 3D one comes from the GUI entry; MapRenderer is the top-down
// fallback), recorded into the store (record.go), replayed in the shared frame viewer
// (replay.go), and played by agents with a live reward chart (agent.go).
package gridworld
