import random, json
random.seed(9)
strbits = ['a', 'é', '日', '\\n', '\\t', '\\"', "\\'", '\\\\', '\\101', '\\x41', '\\x4', '\\xZ', '\\u00e9', '\\u4e2d', '\\U0001F600', '\\(', '\\?', '\\d', '\\a', '\\v', '\\0', '\\777', '\\303\\251', '\\xAC', '#', ' ', '\\', '"', "'", '\\u12', '\x01', '\\e', '\\x4g', '\\\\x4', '\\12', '\\8', '\\U00110000', '\\ud800', '\\xc3\\xa9', '\\u00', '\u2028', '\\\u00e9']
cases = []
for _ in range(3000):
    q = random.choice('"\'')
    body = ''.join(random.choice(strbits) for _ in range(random.randint(0, 4)))
    cases.append('name: ' + q + body + q)
nums = '0123456789.eE+-_xabfinINFo'
for _ in range(3000):
    tok = ''.join(random.choice(nums) for _ in range(random.randint(1, 5)))
    cases.append(random.choice(['max_duration_sec: ', 'max_num_steps: ', 'extras_spec { dtype: ', 'event_sources { repeatability: ']) + tok + (' }' if random.random() < 0 else ''))
cases = [c + ' }' if c.startswith(('extras_spec', 'event_sources')) else c for c in cases]
json.dump(cases, open('/tmp/cases.json', 'w'))
