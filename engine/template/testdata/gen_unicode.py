import sys, unicodedata
go = {}
for line in open('go.txt'):
    c, up, lo, p, w = line.split()
    go[int(c,16)] = (int(up,16), int(lo,16), p == '1', w == '1')

def ranges(cps):
    cps = sorted(cps)
    out = []
    for c in cps:
        if out and out[-1][1] == c - 1:
            out[-1][1] = c
        else:
            out.append([c, c])
    return out

upper, lower = {}, {}
printdiff, worddiff = [], []
cased, ignorable = [], []
for c, (gu, gl, gp, gw) in go.items():
    ch = chr(c)
    pu, pl = ch.upper(), ch.lower()
    if pu != chr(gu):
        upper[c] = pu
    if pl != chr(gl):
        lower[c] = pl
    if ch.isprintable() != gp:
        printdiff.append(c)
    if (ch.isalnum() or ch == '_') != gw:
        worddiff.append(c)
    isc = (ch + '\u03a3').lower()[-1] == '\u03c2'
    if isc:
        cased.append(c)
        ign = (('1' + ch + '\u03a3').lower()[-1] != '\u03c2')
    else:
        ign = (('A' + ch + '\u03a3').lower()[-1] == '\u03c2')
    if ign:
        ignorable.append(c)
spaces = [c for c in range(0x110000) if chr(c).isspace()]

def golit(s):
    return '"' + ''.join('\\U%08x' % ord(x) if ord(x) > 0xffff else '\\u%04x' % ord(x) for x in s) + '"'

def emit_ranges(name, doc, cps):
    print('// %s' % doc)
    print('var %s = []runeRange{' % name)
    rs = ranges(cps)
    for i in range(0, len(rs), 4):
        print('\t' + ' '.join('{0x%04X, 0x%04X},' % (a, b) for a, b in rs[i:i+4]))
    print('}')
    print()

print('// Code generated from CPython %s (unicodedata %s) by testdata/gen_unicode.py; DO NOT EDIT.' % (sys.version.split()[0], unicodedata.unidata_version))
print()
print('package template')
print()
print('// pyUpperDiff maps the code points whose Python str.upper differs from unicode.ToUpper.')
print('var pyUpperDiff = map[rune]string{')
for c in sorted(upper):
    print('\t0x%04X: %s,' % (c, golit(upper[c])))
print('}')
print()
print('// pyLowerDiff maps the code points whose Python str.lower differs from unicode.ToLower')
print('// (final sigma is handled separately).')
print('var pyLowerDiff = map[rune]string{')
for c in sorted(lower):
    print('\t0x%04X: %s,' % (c, golit(lower[c])))
print('}')
print()
emit_ranges('pyPrintableFlip', 'pyPrintableFlip lists the code points where str.isprintable differs from unicode.IsPrint.', printdiff)
emit_ranges('pyWordFlip', 'pyWordFlip lists the code points where Python\'s \\w differs from [\\p{L}\\p{N}_].', worddiff)
emit_ranges('pyCased', 'pyCased is the Unicode Cased property as CPython sees it.', cased)
emit_ranges('pyCaseIgnorable', 'pyCaseIgnorable is the Unicode Case_Ignorable property as CPython sees it.', ignorable)
emit_ranges('pySpace', 'pySpace is the set of characters for which str.isspace is true.', spaces)
