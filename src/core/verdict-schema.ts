import { z } from 'zod';
import { MAX_MESSAGE_CHARS, MAX_NAME_CHARS, MAX_REASON_CHARS, MAX_UID_CHARS } from './limits.js';
import { NameSchema, ObjectMetaNameOptionalSchema, TimeSchema } from './meta.js';
import { ZoneStateSchema } from './zone.js';

/**
 * The zod schema of Verdict (docs/api.md#verdict): the record of one decision of the node lifecycle controller and
 * the evidence it decided on. Only the controller writes them; the registry validates its writes like any other.
 */
const RvSchema = z.string().max(MAX_UID_CHARS);
/** A year: detector durations are bounded like every other field (src/core/limits.ts). */
const MAX_DETECTOR_SECONDS = 31_536_000;

export const VerdictEvidenceSchema = z.strictObject({
  /** Wall time of the decision. */
  observedAt: TimeSchema,
  /** Wall time at which the controller last observed a renewal or a Ready heartbeat, on its own clock. */
  lastRenewalObservedAt: TimeSchema.optional(),
  silentForSeconds: z.number().nonnegative().optional(),
  graceSeconds: z.number().nonnegative().optional(),
  lease: z
    .strictObject({
      renewTime: TimeSchema.optional(),
      cachedResourceVersion: RvSchema.optional(),
      liveResourceVersion: RvSchema.optional(),
    })
    .optional(),
  zone: z
    .strictObject({
      name: z.string().max(MAX_NAME_CHARS),
      state: ZoneStateSchema,
      nodes: z.number().int().nonnegative(),
      notReady: z.number().int().nonnegative(),
      evictionRate: z.number().nonnegative(),
      /** 1-based position in the zone's NoExecute taint queue. */
      queuePosition: z.number().int().positive().optional(),
      earliestTaintAt: TimeSchema.optional(),
    })
    .optional(),
  breaker: z.strictObject({ open: z.boolean(), reason: z.string().max(1024).optional() }).optional(),
  masterDisruption: z.boolean().optional(),
  detector: z
    .strictObject({
      kind: z.enum(['fixed', 'phi']),
      phi: z.number().nonnegative().optional(),
      threshold: z.number().nonnegative().optional(),
      meanIntervalSeconds: z.number().nonnegative().optional(),
      stdDeviationSeconds: z.number().nonnegative().optional(),
      samples: z.number().int().nonnegative().optional(),
      /** phi: the silence after which this node is marked Unknown (bounded by the grace, docs/node-lifecycle.md#phi-bounds). */
      expiresAfterSeconds: z.number().nonnegative().max(MAX_DETECTOR_SECONDS).optional(),
      /** The silence after which this node is Suspect (docs/node-lifecycle.md#suspect). */
      suspectAfterSeconds: z.number().nonnegative().max(MAX_DETECTOR_SECONDS).optional(),
    })
    .optional(),
  flapping: z
    .strictObject({ transitions: z.number().int().nonnegative(), windowSeconds: z.number().nonnegative() })
    .optional(),
  witnesses: z
    .array(
      z.strictObject({
        node: z.string().max(MAX_NAME_CHARS),
        zone: z.string().max(MAX_NAME_CHARS),
        sawAliveAt: TimeSchema.optional(),
        reachable: z.boolean().optional(),
      }),
    )
    .max(32)
    .optional(),
});
export type VerdictEvidence = z.infer<typeof VerdictEvidenceSchema>;

export const VerdictInputSchema = z.strictObject({
  apiVersion: z.literal('shepherd.io/v1').optional(),
  kind: z.literal('Verdict').optional(),
  /** Without a name the server names the Verdict `<node>.<hex>`; a given name must start with `<node>.`. */
  metadata: ObjectMetaNameOptionalSchema.optional(),
  /** At most 236 characters, so that a server-chosen name `<node>.<16 hex>` stays within 253. */
  node: z.string().max(236).pipe(NameSchema),
  /** What was decided, e.g. MarkUnknown, QueueTaint, Taint, SwapTaint, RemoveTaint, Hold, Ready (docs/verdicts.md). */
  action: z.string().min(1).max(64),
  reason: z.string().min(1).max(MAX_REASON_CHARS),
  message: z.string().max(MAX_MESSAGE_CHARS),
  dryRun: z.boolean(),
  evidence: VerdictEvidenceSchema,
  /** What the controller will do next if nothing changes. */
  next: z.string().max(1024).optional(),
});
export type VerdictInput = z.infer<typeof VerdictInputSchema>;
