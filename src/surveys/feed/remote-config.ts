/**
 * posthog-js's remote config (`/array/<token>/config` as JSON, `/array/<token>/config.js` as a
 * script that stores it in `window._POSTHOG_REMOTE_CONFIG[token]`). posthog-js loads surveys only
 * after a remote config says `surveys` is on; without one it logs "Remote config unavailable" and
 * shows none. Kept minimal: Bellwether serves flags, surveys and events, so every other product is
 * off and posthog-js asks for nothing else. `surveys` is on while the project has a survey in the
 * feed (as PostHog does), so a project without surveys costs no feed request per page view.
 */
export function remoteConfig(token: string, hasSurveys: boolean): Record<string, unknown> {
  return {
    token,
    supportedCompression: ['gzip', 'gzip-js'],
    hasFeatureFlags: true,
    captureDeadClicks: false,
    capturePerformance: false,
    autocapture_opt_out: false,
    autocaptureExceptions: false,
    elementsChainAsString: true,
    errorTracking: { autocaptureExceptions: false, suppressionRules: [] },
    sessionRecording: false,
    heatmaps: false,
    conversations: false,
    productTours: false,
    surveys: hasSurveys,
    defaultIdentifiedOnly: true,
    siteApps: [],
  };
}

/** The script form: JSON is valid JavaScript, so the config and the token are embedded as JSON. */
export function remoteConfigScript(token: string, config: Record<string, unknown>): string {
  const entry = JSON.stringify({ config, siteApps: [] });
  return (
    '(function () {\n' +
    '  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};\n' +
    `  window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(token)}] = ${entry};\n` +
    '})();\n'
  );
}
