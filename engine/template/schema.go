package template

import "sort"

// The Task schema of Mobile-Env (android_env/proto/task.proto and adb.proto of
// X-LANCE/Mobile-Env, Apache-2.0, themselves derived from DeepMind's AndroidEnv), written as
// descriptor tables for the textproto reader and printer of this package. Only field names,
// numbers, types and enum values matter here: the printer orders fields by number.

type kind uint8

const (
	kString kind = iota
	kInt32
	kFloat
	kBool
	kEnum
	kMessage
)

type enumDesc struct {
	name   string
	values []enumValue
}

type enumValue struct {
	name   string
	number int32
}

func (e *enumDesc) byName(n string) (int32, bool) {
	for _, v := range e.values {
		if v.name == n {
			return v.number, true
		}
	}
	return 0, false
}

func (e *enumDesc) nameOf(n int32) (string, bool) {
	for _, v := range e.values {
		if v.number == n {
			return v.name, true
		}
	}
	return "", false
}

type fieldDesc struct {
	name     string
	number   int32
	kind     kind
	repeated bool
	oneof    string // name of the containing oneof ("" if none)
	msg      func() *msgDesc
	enum     *enumDesc
	index    int // position in msgDesc.fields (sorted by number)
}

// hasPresence reports whether a singular field is present even with its default value.
func (f *fieldDesc) hasPresence() bool { return f.kind == kMessage || f.oneof != "" }

type msgDesc struct {
	name   string
	fields []*fieldDesc
	byName map[string]*fieldDesc
}

func newMsg(name string, fields ...*fieldDesc) *msgDesc {
	sort.Slice(fields, func(i, j int) bool { return fields[i].number < fields[j].number })
	m := &msgDesc{name: name, fields: fields, byName: map[string]*fieldDesc{}}
	for i, f := range fields {
		f.index = i
		m.byName[f.name] = f
	}
	return m
}

func fStr(name string, n int32) *fieldDesc   { return &fieldDesc{name: name, number: n, kind: kString} }
func fInt(name string, n int32) *fieldDesc   { return &fieldDesc{name: name, number: n, kind: kInt32} }
func fFloat(name string, n int32) *fieldDesc { return &fieldDesc{name: name, number: n, kind: kFloat} }
func fEnum(name string, n int32, e *enumDesc) *fieldDesc {
	return &fieldDesc{name: name, number: n, kind: kEnum, enum: e}
}
func fMsg(name string, n int32, m func() *msgDesc) *fieldDesc {
	return &fieldDesc{name: name, number: n, kind: kMessage, msg: m}
}
func rep(f *fieldDesc) *fieldDesc             { f.repeated = true; return f }
func oneof(o string, f *fieldDesc) *fieldDesc { f.oneof = o; return f }
func lazy(m **msgDesc) func() *msgDesc        { return func() *msgDesc { return *m } }

func enumOf(name string, names ...string) *enumDesc {
	e := &enumDesc{name: name}
	for i, n := range names {
		e.values = append(e.values, enumValue{n, int32(i)})
	}
	return e
}

var (
	descTask, descAppScreen, descWaitForAppScreen, descCheckInstall, descWaitForMessage *msgDesc
	descSleep, descSuccessCondition, descSetupStep, descArraySpec                       *msgDesc
	descEventSource, descRect, descTextEvent, descIconRecogEvent, descIconMatchEvent    *msgDesc
	descViewHierarchyEvent, descProperty, descLogEvent, descResponseEvent               *msgDesc
	descEventSlot, descFakeSource, descTaskEventSlots                                   *msgDesc
	descAdbCall, descInstallApk, descFilesystem, descStartActivity, descStartIntent     *msgDesc
	descStartRandomActivity, descPackageName, descEmpty, descGrantPermissions, descTap  *msgDesc
	descPressButton, descRotate, descStartAccessibilityService, descStartScreenPinning  *msgDesc
	descCommand                                                                         *msgDesc
)

// Enum tables.
var (
	enumDataType = enumOf("DataType", "INVALID_DATA_TYPE", "FLOAT", "DOUBLE", "INT8", "INT16", "INT32", "INT64",
		"UINT8", "UINT16", "UINT32", "UINT64", "BOOL", "STRING_U1", "STRING_U16", "STRING_U25", "STRING_U250")
	enumSourceRepeatability = enumOf("EventSource.Repeatability", "NONE", "LAST", "UNLIMITED")
	enumSlotRepeatability   = enumOf("EventSlot.Repeatability", "UNLIMITED", "LAST", "NONE")
	enumSlotType            = enumOf("EventSlot.Type", "SINGLE", "AND", "OR")
	enumSign                = enumOf("Sign", "EQ", "LE", "LT", "GE", "GT", "NE")
	enumMode                = enumOf("Mode", "REGEX", "DIFFLIB", "FUZZ", "SBERT")
	enumButton              = enumOf("Button", "HOME", "BACK")
	enumOrientation         = enumOf("Orientation", "PORTRAIT_0", "LANDSCAPE_90", "PORTRAIT_180", "LANDSCAPE_270")
)

// Field numbers used by the token chaining.
const (
	taskID          = 1
	taskName        = 2
	taskDescription = 3
	taskSetupSteps  = 4
	taskResetSteps  = 5
	taskEventSrcs   = 9
	taskEventSlots  = 10
	taskExtrasSpec  = 11
	taskCommand     = 12
	taskVocabulary  = 13

	sourceID = 12

	slotsScore       = 1
	slotsReward      = 2
	slotsEpisodeEnd  = 3
	slotsExtra       = 4
	slotsJSONExtra   = 5
	slotsInstruction = 6

	slotType           = 1
	slotID             = 2
	slotEvents         = 3
	slotPrerequisite   = 4
	slotTransformation = 5

	fakeID    = 1
	fakeEvent = 2
)

func init() {
	descAppScreen = newMsg("android_env.AppScreen", fStr("activity", 1), rep(fStr("view_hierarchy_path", 2)))
	descWaitForAppScreen = newMsg("android_env.WaitForAppScreen", fMsg("app_screen", 1, lazy(&descAppScreen)), fFloat("timeout_sec", 2))
	descCheckInstall = newMsg("android_env.CheckInstall", fStr("package_name", 1), fFloat("timeout_sec", 2))
	descWaitForMessage = newMsg("android_env.WaitForMessage", fStr("message", 1), fFloat("timeout_sec", 2))
	descSleep = newMsg("android_env.Sleep", fFloat("time_sec", 1))
	descSuccessCondition = newMsg("android_env.SuccessCondition", fInt("num_retries", 1),
		oneof("check", fMsg("wait_for_app_screen", 2, lazy(&descWaitForAppScreen))),
		oneof("check", fMsg("check_install", 3, lazy(&descCheckInstall))),
		oneof("check", fMsg("wait_for_message", 4, lazy(&descWaitForMessage))))
	descSetupStep = newMsg("android_env.SetupStep", fMsg("success_condition", 1, lazy(&descSuccessCondition)),
		oneof("step", fMsg("adb_call", 2, lazy(&descAdbCall))),
		oneof("step", fMsg("sleep", 3, lazy(&descSleep))))
	descArraySpec = newMsg("android_env.ArraySpec", fStr("name", 1), rep(fInt("shape", 2)), fEnum("dtype", 3, enumDataType))

	descRect = newMsg("android_env.EventSource.Rect", fFloat("x0", 2), fFloat("y0", 3), fFloat("x1", 4), fFloat("y1", 5))
	descTextEvent = newMsg("android_env.EventSource.TextEvent", fStr("expect", 1), fMsg("rect", 2, lazy(&descRect)),
		fEnum("mode", 3, enumMode), fFloat("threshold", 4))
	descIconRecogEvent = newMsg("android_env.EventSource.IconRecogEvent", fStr("class", 1), fMsg("rect", 2, lazy(&descRect)))
	descIconMatchEvent = newMsg("android_env.EventSource.IconMatchEvent", fStr("path", 1), fMsg("rect", 2, lazy(&descRect)))
	descProperty = newMsg("android_env.EventSource.ViewHierarchyEvent.Property", fStr("property_name", 1),
		fEnum("sign", 2, enumSign),
		oneof("property_value", fStr("pattern", 3)),
		oneof("property_value", fInt("integer", 4)),
		oneof("property_value", fFloat("floating", 5)))
	descViewHierarchyEvent = newMsg("android_env.EventSource.ViewHierarchyEvent",
		rep(fMsg("properties", 2, lazy(&descProperty))), rep(fStr("selector", 3)))
	descLogEvent = newMsg("android_env.EventSource.LogEvent", rep(fStr("filters", 1)), fStr("pattern", 2))
	descResponseEvent = newMsg("android_env.EventSource.ResponseEvent", fStr("pattern", 1), fEnum("mode", 2, enumMode))
	descEventSource = newMsg("android_env.EventSource",
		oneof("event", fMsg("text_recognize", 3, lazy(&descTextEvent))),
		oneof("event", fMsg("text_detect", 4, lazy(&descTextEvent))),
		oneof("event", fMsg("icon_recognize", 5, lazy(&descIconRecogEvent))),
		oneof("event", fMsg("icon_detect", 6, lazy(&descIconRecogEvent))),
		oneof("event", fMsg("icon_match", 7, lazy(&descIconMatchEvent))),
		oneof("event", fMsg("icon_detect_match", 8, lazy(&descIconMatchEvent))),
		oneof("event", fMsg("view_hierarchy_event", 9, lazy(&descViewHierarchyEvent))),
		oneof("event", fMsg("log_event", 10, lazy(&descLogEvent))),
		oneof("event", fMsg("response_event", 11, lazy(&descResponseEvent))),
		fInt("id", 12), fEnum("repeatability", 14, enumSourceRepeatability))

	descFakeSource = newMsg("android_env.EventSlot.FakeSource",
		oneof("source", fInt("id", 1)), oneof("source", fMsg("event", 2, lazy(&descEventSlot))))
	descEventSlot = newMsg("android_env.EventSlot", fEnum("type", 1, enumSlotType), fInt("id", 2),
		rep(fMsg("events", 3, lazy(&descFakeSource))), rep(fInt("prerequisite", 4)), rep(fStr("transformation", 5)),
		fEnum("repeatability", 6, enumSlotRepeatability), rep(fInt("cache_until", 7)))
	slot := lazy(&descEventSlot)
	descTaskEventSlots = newMsg("android_env.TaskEventSlots", fMsg("score_listener", 1, slot), fMsg("reward_listener", 2, slot),
		fMsg("episode_end_listener", 3, slot), fMsg("extra_listener", 4, slot), fMsg("json_extra_listener", 5, slot),
		fMsg("instruction_listener", 6, slot), fMsg("null_listener", 7, slot))

	descFilesystem = newMsg("android_env.AdbCall.InstallApk.Filesystem", fStr("path", 1))
	descInstallApk = newMsg("android_env.AdbCall.InstallApk", oneof("location", fMsg("filesystem", 2, lazy(&descFilesystem))))
	descStartActivity = newMsg("android_env.AdbCall.StartActivity", fStr("full_activity", 1), rep(fStr("extra_args", 2)), fStr("flag", 3))
	descStartIntent = newMsg("android_env.AdbCall.StartIntent", fStr("data_uri", 1), fStr("action", 2), fStr("package_name", 3))
	descStartRandomActivity = newMsg("android_env.AdbCall.StartRandomActivity", rep(fStr("activity_list", 1)),
		rep(fStr("extra_args", 2)), fFloat("timeout_sec", 4))
	descPackageName = newMsg("android_env.AdbCall.PackageName", fStr("package_name", 1))
	descEmpty = newMsg("android_env.AdbCall.Empty")
	descGrantPermissions = newMsg("android_env.AdbCall.GrantPermissions", fStr("package_name", 1), rep(fStr("permissions", 2)))
	descTap = newMsg("android_env.AdbCall.Tap", fInt("x", 1), fInt("y", 2))
	descPressButton = newMsg("android_env.AdbCall.PressButton", fEnum("button", 1, enumButton))
	descRotate = newMsg("android_env.AdbCall.Rotate", fEnum("orientation", 1, enumOrientation))
	descStartAccessibilityService = newMsg("android_env.AdbCall.StartAccessibilityService", fStr("full_service", 1))
	descStartScreenPinning = newMsg("android_env.AdbCall.StartScreenPinning", fStr("full_activity", 1))
	descCommand = newMsg("android_env.AdbCall.Command", rep(fStr("command", 1)))
	cmd := func(name string, n int32, m **msgDesc) *fieldDesc { return oneof("command", fMsg(name, n, lazy(m))) }
	descAdbCall = newMsg("android_env.AdbCall",
		cmd("install_apk", 1, &descInstallApk), cmd("start_activity", 2, &descStartActivity),
		cmd("force_stop", 3, &descPackageName), cmd("clear_cache", 4, &descPackageName),
		cmd("grant_permissions", 5, &descGrantPermissions), cmd("tap", 6, &descTap),
		cmd("press_button", 7, &descPressButton), cmd("rotate", 8, &descRotate),
		cmd("start_accessibility_service", 9, &descStartAccessibilityService),
		cmd("start_screen_pinning", 10, &descStartScreenPinning),
		cmd("start_random_activity", 11, &descStartRandomActivity),
		cmd("force_stop_random_activity", 12, &descEmpty), cmd("clear_cache_random_activity", 13, &descEmpty),
		cmd("disable_animations", 14, &descEmpty), cmd("start_intent", 15, &descStartIntent),
		cmd("uninstall_package", 16, &descPackageName), cmd("shell_command", 17, &descCommand),
		cmd("adb_command", 18, &descCommand))

	descTask = newMsg("android_env.Task", fStr("id", 1), fStr("name", 2), fStr("description", 3),
		rep(fMsg("setup_steps", 4, lazy(&descSetupStep))), rep(fMsg("reset_steps", 5, lazy(&descSetupStep))),
		fMsg("expected_app_screen", 6, lazy(&descAppScreen)), fFloat("max_duration_sec", 7), fInt("max_num_steps", 8),
		rep(fMsg("event_sources", 9, lazy(&descEventSource))), fMsg("event_slots", 10, lazy(&descTaskEventSlots)),
		rep(fMsg("extras_spec", 11, lazy(&descArraySpec))), rep(fStr("command", 12)), rep(fStr("vocabulary", 13)))
}
