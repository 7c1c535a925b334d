// Package widgets holds the widgets that more than one workspace shows: the frame viewer (an
// episode frame by frame with the action drawn over it; its caches, scaling, marks and timeline
// are in their own files), the bar and reward charts, the playback loop, and the colours and
// raster helpers of overlays and maps. It knows episodes (engine/episode), not workspaces.
package widgets
