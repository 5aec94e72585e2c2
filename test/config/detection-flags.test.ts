import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectionConfigFrom } from '../../src/config/detection-flags.js';
import { buildShepherdCommand } from '../../src/config/shepherd-config.js';
import { defaultDetectionConfig } from '../../src/controller/node-lifecycle/detector.js';
import { controllerConfigFrom } from '../../src/main/common.js';
import { nodeStatus } from '../../src/cli/node-table.js';
import type { Node } from '../../src/core/node.js';

function parse(argv: string[]): Record<string, unknown> {
  const cmd = buildShepherdCommand('0.0.0-test')
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  cmd.parse(argv, { from: 'user' });
  return cmd.opts();
}

describe('failure detection flags', () => {
  it('defaults: the fixed detector, Suspect after 1.5 renew intervals, flap damping 3 in 10m', () => {
    assert.deepEqual(detectionConfigFrom(parse([])), defaultDetectionConfig);
    assert.deepEqual(controllerConfigFrom(parse([])).detection, defaultDetectionConfig);
  });

  it('parses every flag', () => {
    const c = detectionConfigFrom(
      parse([
        '--node-failure-detector=phi',
        '--phi-threshold=10',
        '--phi-suspect-threshold=2',
        '--phi-min-std-deviation=1s',
        '--phi-acceptable-pause=3s',
        '--phi-window=50',
        '--phi-min-grace=30s',
        '--node-suspect-after=2',
        '--node-flap-threshold=1',
        '--node-flap-window=2m',
      ]),
    );
    assert.deepEqual(c, {
      ...defaultDetectionConfig,
      failureDetector: 'phi',
      phiThreshold: 10,
      phiSuspectThreshold: 2,
      phiMinStdDeviationMs: 1_000,
      phiAcceptablePauseMs: 3_000,
      phiWindow: 50,
      phiMinGraceMs: 30_000,
      suspectRenewIntervals: 2,
      flapThreshold: 1,
      flapWindowMs: 120_000,
    });
  });

  it('refuses an unknown detector and an inconsistent combination in one sentence naming the flag', () => {
    assert.throws(() => parse(['--node-failure-detector=adaptive']));
    assert.throws(() => controllerConfigFrom(parse(['--phi-suspect-threshold=9'])), /--phi-suspect-threshold/);
  });
});

describe('sheepctl nodes STATUS', () => {
  const node = (conditions: Array<{ type: string; status: 'True' | 'False' | 'Unknown' }>, cordoned = false): Node =>
    ({
      metadata: { name: 'n1' },
      spec: cordoned ? { unschedulable: true } : {},
      status: { conditions },
    }) as unknown as Node;

  it('shows Ready,Suspect the way kubectl shows Ready,SchedulingDisabled', () => {
    assert.equal(nodeStatus(node([{ type: 'Ready', status: 'True' }])), 'Ready');
    const suspect = { type: 'Suspect', status: 'True' as const };
    assert.equal(nodeStatus(node([{ type: 'Ready', status: 'True' }, suspect])), 'Ready,Suspect');
    assert.equal(
      nodeStatus(node([{ type: 'Ready', status: 'Unknown' }, suspect])),
      'Unknown',
      'no doubt beside Unknown',
    );
    assert.equal(
      nodeStatus(node([{ type: 'Ready', status: 'True' }, suspect], true)),
      'Ready,Suspect,SchedulingDisabled',
    );
    assert.equal(
      nodeStatus(
        node([
          { type: 'Ready', status: 'True' },
          { ...suspect, status: 'False' },
        ]),
      ),
      'Ready',
    );
  });
});
