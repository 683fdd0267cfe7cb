#!/usr/bin/env python3
"""GPU time per decision from `servelab run --json-events` logs.

    python3 gpu-time.py session4-call1-events.jsonl session4-call2-events.jsonl session4-call3-events.jsonl

A launch's time runs from its "launching" event to its "teardown": the
launch, health wait and teardown (launch overhead), the quality guard
(from "ready" to "quality-guard") and its trials (started to finished).
Each launch's overhead and guard are shared among its trials' steps in
proportion to their benchmark seconds; the baseline's runs count for the
prompt-cache step, whose decision they serve. A trial cut off by a
call's time limit has no "trial-finished": its time is "interrupted".
"""
import json,sys,datetime,collections
def ts(s):
    s=s.rstrip('Z'); a,b=(s.split('.')+['0'])[:2]
    return datetime.datetime.fromisoformat(a).timestamp()+float('0.'+b)
steps=collections.defaultdict(lambda: collections.Counter())
tot=collections.Counter()
for f in sys.argv[1:]:
    cur=None
    for l in open(f):
        e=json.loads(l); k=e['kind']; t=ts(e['time'])
        if k=='launching': cur={'t0':t,'trials':[],'started':None}
        elif k=='ready': cur['ready']=t
        elif k=='quality-guard': cur['guard']=t-cur['ready']
        elif k=='trial-started': cur['started']=(t,e['trial'])
        elif k=='trial-finished':
            st,tr=cur['started']; cur['trials'].append((tr['step'],tr['profile'],t-st)); cur['started']=None
        elif k=='teardown':
            L=e['launch']; over=L.get('launchSeconds',0)+L.get('healthSeconds',0)+L.get('teardownSeconds',0)
            lost=0
            if cur['started']: lost=t-cur['started'][0]-L.get('teardownSeconds',0)  # interrupted trial
            wall=t-cur['t0']
            bench=sum(x[2] for x in cur['trials'])
            guard=cur.get('guard',0)
            tot['launches']+=1; tot['overhead']+=over; tot['bench']+=bench; tot['guard']+=guard; tot['lost']+=lost; tot['wall']+=wall
            for s,p,sec in cur['trials']:
                key='validate' if s=='validate' else ('prompt-cache' if s=='baseline' else s)
                share=sec/bench if bench else 0
                steps[key]['bench']+=sec; steps[key]['overhead']+=over*share; steps[key]['guard']+=guard*share; steps[key]['runs']+=1
                steps[key]['launch_share']+=share
            if lost: steps['interrupted']['lost']+=lost+over+guard if not cur['trials'] else lost
            cur=None
for s,c in steps.items():
    allt=c['bench']+c['overhead']+c['guard']
    print(f"{s:14s} runs {c['runs']:3.0f} bench {c['bench']:7.1f} s  launch {c['overhead']:5.1f} s  guard {c['guard']:5.1f} s  total {allt+c['lost']:7.1f} s  launch share {100*c['overhead']/allt if allt else 0:4.1f} %  launches {c['launch_share']:.1f}")
print({k:round(v,1) for k,v in tot.items()}, 'launch share of all', round(100*tot['overhead']/(tot['wall']),1), '%', 'launch+guard share', round(100*(tot['overhead']+tot['guard'])/tot['wall'],1))
