/**
 * Every event type a webhook can subscribe to. Adding one is one line here: an activity entry
 * (scope, which entries) and how to read its object, or `emitted(type)` for one an area writes
 * itself (survey responses, from ingestion) or raises in its unit of work (`raiseEvent`: scheduled
 * changes, change requests).
 */
import type { NewActivity } from '../../accounts/activity/store.ts';
import { cohortObject, experimentObject, flagObject, surveyObject, type ObjectLoader } from './objects.ts';

export interface ActivityEvent {
  type: string;
  /** The activity log scope whose entries may raise it (`FeatureFlag`, `Survey`…). */
  scope: string;
  /** Whether this entry raises it. */
  raisedBy: (entry: NewActivity) => boolean;
  object: ObjectLoader;
}

export interface EmittedEvent {
  type: string;
  scope: null;
}

export type WebhookEventType = ActivityEvent | EmittedEvent;

const activity =
  (...names: string[]) =>
  (entry: NewActivity) =>
    names.includes(entry.activity);

/** An update that set `field` where it was empty (a survey's or an experiment's start or end date). */
const setFromEmpty = (field: string) => (entry: NewActivity) =>
  entry.activity === 'updated' && (entry.detail.changes ?? []).some((change) => change.field === field && change.before === null && change.after !== null);

const onActivity = (type: string, scope: string, raisedBy: ActivityEvent['raisedBy'], object: ObjectLoader): ActivityEvent => ({ type, scope, raisedBy, object });
const emitted = (type: string): EmittedEvent => ({ type, scope: null });

export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = [
  onActivity('feature_flag.created', 'FeatureFlag', activity('created'), flagObject),
  onActivity('feature_flag.updated', 'FeatureFlag', activity('updated', 'restored'), flagObject),
  onActivity('feature_flag.deleted', 'FeatureFlag', activity('deleted'), flagObject),
  onActivity('survey.created', 'Survey', activity('created'), surveyObject),
  onActivity('survey.launched', 'Survey', setFromEmpty('start_date'), surveyObject),
  onActivity('survey.stopped', 'Survey', setFromEmpty('end_date'), surveyObject),
  emitted('survey.response'),
  onActivity('cohort.updated', 'Cohort', activity('updated', 'deleted', 'restored', 'persons_added_manually', 'person_removed_manually'), cohortObject),
  onActivity('experiment.launched', 'Experiment', setFromEmpty('start_date'), experimentObject),
  onActivity('experiment.ended', 'Experiment', setFromEmpty('end_date'), experimentObject),
  emitted('experiment.significant'),
  emitted('scheduled_change.applied'),
  emitted('scheduled_change.failed'),
  emitted('change_request.opened'),
  emitted('change_request.approved'),
  emitted('change_request.rejected'),
];

/** The test ping `POST …/test/` sends; not subscribable. */
export const PING_EVENT = 'webhook.ping';

export const EVENT_TYPE_NAMES: readonly string[] = WEBHOOK_EVENT_TYPES.map((event) => event.type);

/** Whether an area may raise `type` (a registered type no activity entry raises). */
export function isEmittedType(type: string): boolean {
  return WEBHOOK_EVENT_TYPES.some((event) => event.scope === null && event.type === type);
}

export function activityEventsFor(entry: NewActivity): ActivityEvent[] {
  return WEBHOOK_EVENT_TYPES.filter((event): event is ActivityEvent => event.scope === entry.scope && event.raisedBy(entry));
}
