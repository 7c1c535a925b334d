import json
print(len(json.load(open("data.json"))))
