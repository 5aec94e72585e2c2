/**
 * One error hierarchy keyed by the API's Status reasons. The store, registry and controller throw these;
 * `api/status-errors.ts` alone turns them into Status JSON and `client/` turns Status JSON back into them.
 * Branch on the class or on `reason`, never on message text.
 */
export type StatusReason =
  | 'BadRequest'
  | 'Invalid'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Unauthorized'
  | 'Forbidden'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout';

export const STATUS_CODES: Record<StatusReason, number> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  Invalid: 422,
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
  Timeout: 504,
};

export interface StatusCause {
  field: string;
  message: string;
}

export interface StatusDetails {
  name?: string;
  kind?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export class ShepherdError extends Error {
  readonly reason: StatusReason;
  readonly code: number;
  readonly details: StatusDetails | undefined;

  constructor(reason: StatusReason, message: string, details?: StatusDetails, options?: { cause?: unknown }) {
    super(message, options);
    this.name = `${reason}Error`;
    this.reason = reason;
    this.code = STATUS_CODES[reason];
    this.details = details;
  }
}

export class BadRequestError extends ShepherdError {
  constructor(message: string, details?: StatusDetails) {
    super('BadRequest', message, details);
  }
}
export class InvalidError extends ShepherdError {
  constructor(message: string, causes: StatusCause[], details?: Omit<StatusDetails, 'causes'>) {
    super('Invalid', message, { ...details, causes });
  }
}
export class NotFoundError extends ShepherdError {
  constructor(kind: string, name: string, message = `${kind} "${name}" not found`) {
    super('NotFound', message, { kind, name });
  }
}
export class AlreadyExistsError extends ShepherdError {
  constructor(kind: string, name: string) {
    super('AlreadyExists', `${kind} "${name}" already exists`, { kind, name });
  }
}
export class ConflictError extends ShepherdError {
  constructor(kind: string, name: string, message?: string) {
    super(
      'Conflict',
      message ??
        `Operation cannot be fulfilled on ${kind} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      { kind, name },
    );
  }
}
export class GoneError extends ShepherdError {
  constructor(message: string) {
    super('Gone', message);
  }
}
export class UnauthorizedError extends ShepherdError {
  constructor(message = 'Unauthorized: send a valid bearer token (Authorization: Bearer <token>)') {
    super('Unauthorized', message);
  }
}
export class ForbiddenError extends ShepherdError {
  constructor(message: string, details?: StatusDetails) {
    super('Forbidden', message, details);
  }
}
export class TooManyRequestsError extends ShepherdError {
  constructor(message: string, retryAfterSeconds: number) {
    super('TooManyRequests', message, { retryAfterSeconds });
  }
}
export class ServiceUnavailableError extends ShepherdError {
  constructor(message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super(
      'ServiceUnavailable',
      message,
      options?.retryAfterSeconds === undefined ? undefined : { retryAfterSeconds: options.retryAfterSeconds },
      options,
    );
  }
}
export class InternalError extends ShepherdError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('InternalError', message, undefined, options);
  }
}

/** A watch from before the oldest revision the store still keeps (etcd: "required revision has been compacted"). */
export function tooOldResourceVersionError(from: number, oldest: number): GoneError {
  return new GoneError(`too old resource version: ${from} (oldest ${oldest})`);
}

/**
 * A watch from a revision the store has not reached (kube-apiserver's NewTooLargeResourceVersionError, after the
 * same bounded wait): 504 Timeout with a Retry-After; the client watches again a moment later.
 */
export function tooLargeResourceVersionError(requested: number, current: number): ShepherdError {
  return new ShepherdError('Timeout', `Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ field: 'resourceVersion', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}

/**
 * A watcher whose unsent changes passed the server's budget (`what`: "16777216 bytes", "10000 events"): its watch
 * ends with this rather than let it hold the server's memory. The history is still there, so the client resumes
 * from the last resourceVersion it received, after Retry-After; it need not relist.
 */
export function watchTooSlowError(resource: string, what: string, lastSent: number): TooManyRequestsError {
  return new TooManyRequestsError(
    `the watch of ${resource} fell ${what} behind (changes waiting to be sent; resource version ${lastSent} was the last sent): resume from the last resourceVersion you received`,
    1,
  );
}

/** A watch from a revision that is not one. */
export function invalidResourceVersionError(from: number): BadRequestError {
  return new BadRequestError(`invalid resource version ${String(from)}: use a non-negative integer`);
}

/**
 * A later page of a list whose revision can no longer be read (docs/api.md#paging): `why` says what expired; the
 * client lists again from the first page (Kubernetes' "continue parameter is too old" 410).
 */
export function listExpiredError(why: string): GoneError {
  return new GoneError(`${why}: start the list again without continue`);
}

/** A continue token the server cannot have handed out for this list (garbled, tampered, or for another list). */
export function invalidContinueError(why: string): BadRequestError {
  return new BadRequestError(`the continue token ${why}: start the list again without continue`);
}

/** Any call on a store after close(). */
export function storeClosedError(): ServiceUnavailableError {
  return new ServiceUnavailableError('storage is unavailable: the store is closed (the server is shutting down)');
}

/** A request (or readiness probe) that reached a server that is shutting down. */
export function shuttingDownError(): ServiceUnavailableError {
  return new ServiceUnavailableError('the server is shutting down: retry against another server', {
    retryAfterSeconds: 1,
  });
}

/** Builds the error class that matches a Status reason (used by the client to revive server errors). */
export function errorFromStatus(reason: StatusReason, message: string, details?: StatusDetails): ShepherdError {
  switch (reason) {
    case 'NotFound':
      return new NotFoundError(details?.kind ?? '', details?.name ?? '', message);
    case 'AlreadyExists': {
      const e = new AlreadyExistsError(details?.kind ?? '', details?.name ?? '');
      e.message = message;
      return e;
    }
    case 'Conflict':
      return new ConflictError(details?.kind ?? '', details?.name ?? '', message);
    case 'Gone':
      return new GoneError(message);
    case 'Invalid':
      return new InvalidError(message, details?.causes ?? [], { ...details });
    case 'BadRequest':
      return new BadRequestError(message, details);
    case 'Unauthorized':
      return new UnauthorizedError(message);
    case 'Forbidden':
      return new ForbiddenError(message, details);
    case 'TooManyRequests':
      return new TooManyRequestsError(message, details?.retryAfterSeconds ?? 1);
    case 'ServiceUnavailable':
      return new ServiceUnavailableError(
        message,
        details?.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: details.retryAfterSeconds },
      );
    case 'InternalError':
      return new InternalError(message);
    default:
      return new ShepherdError(reason, message, details);
  }
}

export function isReason(err: unknown, reason: StatusReason): boolean {
  return err instanceof ShepherdError && err.reason === reason;
}
