/** The console's sections, named as PostHog names them, in its order. */
export interface NavItem {
  label: string;
  href: string;
}

export const NAV_ITEMS: NavItem[] = [
  { label: 'Get started', href: '/onboarding' },
  { label: 'Feature flags', href: '/feature_flags' },
  { label: 'Experiments', href: '/experiments' },
  { label: 'Surveys', href: '/surveys' },
  { label: 'Early access', href: '/early_access_features' },
  { label: 'Cohorts', href: '/cohorts' },
  { label: 'Persons', href: '/persons' },
  { label: 'Events', href: '/events' },
  { label: 'Event definitions', href: '/data-management/events' },
  { label: 'Changes awaiting review', href: '/approvals' },
  { label: 'Activity', href: '/activity' },
  { label: 'Settings', href: '/settings' },
];

export function isActive(item: NavItem, location: string): boolean {
  return location === item.href || location.startsWith(`${item.href}/`);
}
