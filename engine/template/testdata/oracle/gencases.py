import random, json
random.seed(7)
strbits = ['a', 'é', '日', '\\n', '\\t', '\\"', "\\'", '\\\\', '\\101', '\\x41', '\\x4', '\\xZ', '\\u00e9', '\\u4e2d', '\\U0001F600', '\\(', '\\?', '\\d', '\\a', '\\v', '\\0', '\\777', '\\303\\251', '\\xAC', '#', ' ', '\\', '"', "'", '\\N{DASH}', '\\u12', '\x01', '\\e']
nums = ['1', '-1', '0', '00', '010', '0x1f', '1.5', '1e-05', '1e5', '.5', '5.', '1_0', 'inf', '-inf', 'nan', '1.0f', '2147483647', '2147483648', '-2147483648', '0.1', '0.3333', '10.25', '1e+20', '3.4e38', '3.5e38', '1e-45', '1e-46', 'abc', '+1', '0b11', '0o7', '1.2.3']
def s():
    q = random.choice('"\'')
    body = ''.join(random.choice(strbits) for _ in range(random.randint(0, 5)))
    return q + body + q
def strs():
    return ' '.join(s() for _ in range(random.randint(1, 2)))
def case():
    parts = []
    for _ in range(random.randint(1, 5)):
        r = random.random()
        if r < 0.2: parts.append('name: ' + strs())
        elif r < 0.3: parts.append('max_num_steps: ' + random.choice(nums))
        elif r < 0.45: parts.append('max_duration_sec: ' + random.choice(nums))
        elif r < 0.55: parts.append('command: [' + ', '.join(strs() for _ in range(random.randint(0, 3))) + ']')
        elif r < 0.65: parts.append('extras_spec ' + random.choice([':', '']) + ' { shape: [' + ', '.join(random.choice(nums) for _ in range(random.randint(0, 3))) + '] dtype: ' + random.choice(['INT32', '5', '99', 'FOO', '-1']) + ' }')
        elif r < 0.75: parts.append('event_sources { text_detect { rect { x0: %s y1: %s } mode: %s threshold: %s } id: %s repeatability: %s }' % (random.choice(nums), random.choice(nums), random.choice(['FUZZ', 'REGEX', '2']), random.choice(nums), random.choice(nums), random.choice(['NONE', 'LAST', 'UNLIMITED', '0', '7'])))
        elif r < 0.85: parts.append('event_slots < score_listener: { events: [ {id: %s}, { event { id: %s } } ] prerequisite: %s cache_until: [%s] } >' % (random.choice(nums), random.choice(nums), random.choice(nums), random.choice(nums)))
        elif r < 0.9: parts.append('event_sources { view_hierarchy_event { properties { property_name: %s pattern: %s } properties { integer: %s } selector: %s } }' % (s(), s(), random.choice(nums), s()))
        else: parts.append(random.choice(['id: "x" id: "y"', 'id: "" id: "y"', 'setup_steps { sleep { time_sec: 1 } adb_call { rotate {} } }', '# comment\n', 'description: "a";', 'vocabulary: "a", vocabulary: "b"', 'max_num_steps: 1 max_num_steps: 2', 'max_num_steps: 0 max_num_steps: 2', 'foo: 1', 'reset_steps: [ { sleep: { time_sec: 0.0 } }, { sleep < time_sec: -0.0 > } ]', 'event_slots { null_listener { type: OR } }', 'id: "a\nb"']))
    return random.choice([' ', '\n', '\t']).join(parts)
cases = [case() for _ in range(4000)]
json.dump(cases, open('/tmp/cases.json', 'w'))
