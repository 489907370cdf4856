import type { ReactNode } from 'react';

export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="auth-page">
      <div className="auth-card">
        <span className="brand">
          <img src="/favicon.svg" alt="" width={28} height={28} /> Bellwether
        </span>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}
