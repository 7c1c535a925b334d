import json, sys
from google.protobuf import descriptor_pb2, descriptor_pool, text_format
from google.protobuf import message_factory
S = json.load(open('/tmp/schema.json'))
fdp = descriptor_pb2.FileDescriptorProto(name='t.proto', package='t', syntax='proto3')
def mname(n): return n.replace('.', '_')
def ename(n): return 'E_' + n.replace('.', '_')
for en, vals in S['enums'].items():
    wrap = fdp.message_type.add(name=ename(en) + '_W')
    e = wrap.enum_type.add(name='E')
    for n, v in vals: e.value.add(name=n, number=v)
for mn, fields in S['messages'].items():
    m = fdp.message_type.add(name=mname(mn))
    oneofs = []
    for f in (fields or []):
        fd = m.field.add(name=f['Name'], number=f['Num'])
        fd.label = fd.LABEL_REPEATED if f['Rep'] else fd.LABEL_OPTIONAL
        k = f['Kind']
        if k == 'string': fd.type = fd.TYPE_STRING
        elif k == 'int32': fd.type = fd.TYPE_INT32
        elif k == 'float': fd.type = fd.TYPE_FLOAT
        elif k == 'bool': fd.type = fd.TYPE_BOOL
        elif k == 'enum': fd.type = fd.TYPE_ENUM; fd.type_name = '.t.' + ename(f['Type']) + '_W.E'
        else: fd.type = fd.TYPE_MESSAGE; fd.type_name = '.t.' + mname(f['Type'])
        if f['Oneof']:
            if f['Oneof'] not in oneofs:
                oneofs.append(f['Oneof']); m.oneof_decl.add(name=f['Oneof'])
            fd.oneof_index = oneofs.index(f['Oneof'])
pool = descriptor_pool.DescriptorPool()
pool.Add(fdp)
Task = message_factory.MessageFactory(pool).GetPrototype(pool.FindMessageTypeByName('t.android_env_Task'))
def run(text):
    t = Task()
    try:
        text_format.Parse(text, t)
    except Exception as e:
        return 'ERROR'
    return text_format.MessageToString(t, as_utf8=True, use_short_repeated_primitives=True, force_colon=True)
if __name__ == '__main__':
    cases = json.load(open(sys.argv[1]))
    json.dump([run(c) for c in cases], open(sys.argv[2], 'w'))
